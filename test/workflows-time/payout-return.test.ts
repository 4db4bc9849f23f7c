import { randomUUID } from 'node:crypto';
import { underLoad } from '../harness/budget';
import { waitFor } from '../harness/wait';
import {
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import {
  payoutReturnStatusQuery,
  payoutReturnWorkflowId,
  returnEvidenceSignal,
} from '../../workflows/payout-return/contract';

// The return workflow against forged evidence (docs/payouts.md "A return"): anyone with Temporal's signal
// rights can send it some, and each piece costs a check (a statement one, a bank call).

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const statementLine = (bankSystemId: string) => ({
  source: 'statement' as const,
  account: '40702810900000000001',
  day: '2026-11-27',
  bankSystemId,
});

test('the same piece of evidence is checked once, and a run checks at most twelve pieces', async () => {
  const checked: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const stubs: StubActivities = {
    verifyReturnEvidence: async ({ evidence }) => {
      await gate; // every signal is in before the first answer: otherwise the run ends on its first refusal
      checked.push(evidence.source === 'statement' ? evidence.bankSystemId : evidence.eventId);
      return { ok: false, why: 'no such line' };
    },
  };
  await withStubWorker(ts, stubs, async ({ taskQueue }) => {
    const sessionId = `ps_${randomUUID()}`;
    const handle = await ts.client.workflow.signalWithStart('payoutReturnWorkflow', {
      taskQueue,
      workflowId: payoutReturnWorkflowId(taskQueue, sessionId),
      args: [{ sessionId }],
      signal: returnEvidenceSignal,
      signalArgs: [statementLine('same')],
    });
    for (let i = 0; i < 3; i++) await handle.signal(returnEvidenceSignal, statementLine('same'));
    for (let i = 0; i < 20; i++) await handle.signal(returnEvidenceSignal, statementLine(`forged-${i}`));
    // Every signal taken before any check answers: the query sees the refusals of the ones over the limit.
    const refused = async () => (await handle.query(payoutReturnStatusQuery)).refused.length;
    try {
      await waitFor(async () => (await refused()) >= 9, underLoad(30_000), 'nine pieces refused unchecked');
    } finally {
      release(); // or the worker could not stop: its check would wait forever
    }
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'payout_return_unproven' } });
    expect(checked).toHaveLength(12);
    expect(new Set(checked).size).toBe(12);
    expect(checked.filter((c) => c === 'same')).toHaveLength(1);
  });
});
