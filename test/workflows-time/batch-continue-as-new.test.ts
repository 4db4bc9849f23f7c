import { randomBytes } from 'node:crypto';
import type { BatchAuthorization, PolicyView } from '../../workflows/contracts/approval';
import type { BatchChunkRow, BatchRowOutcome, BatchWorkflowInput } from '../../workflows/contracts/batch';
import type { PayoutLookup } from '../../workflows/contracts/batch';
import { payoutRequest } from '../harness/payouts';
import {
  callsOf,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import { finalStatus, payoutStubs } from './payout-stubs';

// A batch that continues as new at every chunk boundary while payouts are still in flight (a window
// of 3, chunks of 5): the next run waits for the payouts it did not start, and every row ends exactly
// once (docs/batches.md). The bank answers only when polled: each payout takes a few polls.

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const CHUNKS = 4;
const CHUNK_ROWS = 5;

test('continue-as-new mid-window: every row paid once and reported once, across four runs', async () => {
  const batchId = `batch-${randomBytes(8).toString('hex')}`;
  const rows: BatchChunkRow[] = Array.from({ length: CHUNKS * CHUNK_ROWS }, (_, i) => ({
    row: i + 2,
    request: payoutRequest({ selfEmployed: false, amount: 10_000 + i }),
  }));
  const policy: PolicyView = { version: 'time-skipping-test', people: [], rules: {} as PolicyView['rules'] };
  const auth: BatchAuthorization = {
    required: false,
    needed: 1,
    because: 'a time-skipping test',
    approvedBy: [],
    refused: [],
    satisfied: true,
    policy,
  };
  const recorded: BatchRowOutcome[] = [];
  const bank = new FakeBank();
  const stubs: StubActivities = {
    ...payoutStubs(bank, { authorization: { kind: 'batch', batchId } }),
    openBatch: async () => ({
      fileName: 'payouts.csv',
      fileSha256: 'a'.repeat(64),
      rowCount: rows.length,
      invalidRows: 0,
      totalKopecks: rows.reduce((sum, r) => sum + r.request.amount, 0),
      chunkCount: CHUNKS,
    }),
    authorizeBatch: async () => auth,
    loadBatchChunk: async ({ index }) => rows.slice(index * CHUNK_ROWS, (index + 1) * CHUNK_ROWS),
    recordBatchResults: async ({ outcomes }) => void recorded.push(...outcomes),
    finishBatch: async () => ({ reportPath: 'report.csv', summaryPath: 'summary.txt', summary: 'done' }),
    // The server's record of a payout this run did not start (a closed payout completed only if it paid).
    checkPayout: async ({ workflowId }): Promise<PayoutLookup> => {
      const handle = ts.reader.workflow.getHandle(workflowId);
      if ((await handle.describe()).status.name === 'RUNNING') return { kind: 'running' };
      const status = await finalStatus(handle);
      return { kind: status.state === 'succeeded' ? 'paid' : 'not_paid', status };
    },
  };
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const input: BatchWorkflowInput = {
      batchId,
      // Payouts poll after a second, not a minute: the Java test server leaves time skipping locked after
      // some of a continued batch's signals (seemingly those to a payout that has just closed), and from
      // then on workflow time passes at the clock's pace; a one-second poll keeps the batch to seconds.
      options: {
        maxInFlight: 3,
        checkFunds: false,
        continueAsNewAfterEvents: 10,
        payout: { pollAfterMs: 1_000 },
      },
    };
    const handle = await ts.client.workflow.start('batchWorkflow', {
      taskQueue,
      workflowId: batchId,
      args: [input],
    });
    const result = (await handle.result()) as { counts: Record<string, number> };

    expect(result.counts).toEqual({ succeeded: rows.length });
    // Every row recorded exactly once, as paid.
    expect(recorded.map((o) => o.row).sort((a, b) => a - b)).toEqual(rows.map((r) => r.row));
    expect(new Set(recorded.map((o) => o.state))).toEqual(new Set(['succeeded']));
    // Four runs (every run asks who may pay; only the first opens the file)…
    expect(callsOf(calls, 'authorizeBatch')).toHaveLength(CHUNKS);
    expect(callsOf(calls, 'openBatch')).toHaveLength(1);
    // …of which the later ones waited for payouts an earlier run had started.
    expect(callsOf(calls, 'checkPayout').length).toBeGreaterThan(0);
    // Each reference: one session, one confirm.
    expect(bank.sessions.size).toBe(rows.length);
    const confirmed = callsOf(calls, 'confirmSession').map(
      (c) => (c.input as { sessionId: string }).sessionId,
    );
    expect(confirmed).toHaveLength(rows.length);
    expect(new Set(confirmed).size).toBe(rows.length);
  });
});
