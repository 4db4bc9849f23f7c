import { randomBytes } from 'node:crypto';
import {
  type BatchAuthorization,
  type PolicyView,
  batchProgressQuery,
  type BatchChunkRow,
  type BatchRowOutcome,
  type BatchWorkflowInput,
  type PayoutLookup,
  payoutWorkflowId,
} from '../workflows-time/imports';
import { workTimeout } from '../harness/budget';
import { payoutRequest } from '../harness/payouts';
import {
  callsOf,
  onDevServer,
  skipUntil,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { FakeBank } from '../workflows-time/fake-bank';
import { finalStatus, payoutStubs } from '../workflows-time/payout-stubs';

// A batch continues as new at its chunk boundary while two payouts are still in flight (a window of 2,
// chunks of 4): the next run waits for the payouts it did not start, and every row ends exactly once
// (docs/batches.md). The bank holds the last two payouts of the first chunk until the new run has asked
// them to report, so the rows cross the boundary in flight every time. It runs on the dev server in real time
// (it needs no skipped time): on the Java time-skipping server a payout's workflow task wedged STARTED in 2
// of 6 runs beside two CPU hogs (temporalio/sdk-java#2606, #3088).

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await onDevServer();
});
afterAll(async () => {
  await ts?.teardown();
});

const CHUNKS = 2;
const CHUNK_ROWS = 4;

test(
  'continue-as-new mid-window: the payouts in flight finish under the next run, every row paid and recorded once',
  async () => {
    const batchId = `batch-${randomBytes(8).toString('hex')}`;
    const rows: BatchChunkRow[] = Array.from({ length: CHUNKS * CHUNK_ROWS }, (_, i) => ({
      row: i + 2,
      request: payoutRequest({ selfEmployed: false, amount: 10_000 + i }),
    }));
    const held = new Set(rows.slice(CHUNK_ROWS - 2, CHUNK_ROWS).map((r) => r.request.reference));
    const bank = new FakeBank();
    let holding = true;
    bank.onRead = (s) => {
      if (s.stage === 'processing') s.stage = 'ready';
      else if (s.stage === 'in_progress' && !(holding && held.has(s.reference))) s.stage = 'succeeded';
    };
    const auth: BatchAuthorization = {
      required: false,
      needed: 1,
      because: 'a time-skipping test',
      approvedBy: [],
      refused: [],
      satisfied: true,
      policy: { version: 'time-skipping-test', people: [], rules: {} as PolicyView['rules'] },
    };
    const recorded: BatchRowOutcome[] = [];
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
        // Payouts poll after a second: workflow time runs at the clock's pace while the test waits below.
        options: {
          maxInFlight: 2,
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
      // The second run has asked both held payouts to report to it (their only signal).
      const askedToReport = async (reference: string) =>
        (await ts.reader.workflow.getHandle(payoutWorkflowId(reference)).fetchHistory()).events!.some(
          (e) => e.workflowExecutionSignaledEventAttributes,
        );
      await skipUntil(
        ts,
        async () =>
          (await handle.query(batchProgressQuery)).runs === 2 &&
          (await Promise.all([...held].map(askedToReport))).every(Boolean),
        'the second run waiting for the two payouts in flight',
        1_000,
      );
      expect((await handle.query(batchProgressQuery)).inFlight).toBe(2);
      holding = false;
      const result = (await handle.result()) as { counts: Record<string, number> };

      expect(result.counts).toEqual({ succeeded: rows.length });
      // Every row recorded exactly once, as paid.
      expect(recorded.map((o) => o.row).sort((a, b) => a - b)).toEqual(rows.map((r) => r.row));
      expect(new Set(recorded.map((o) => o.state))).toEqual(new Set(['succeeded']));
      // Two runs (every run asks who may pay; only the first opens the file); the second read the held rows.
      expect(callsOf(calls, 'authorizeBatch')).toHaveLength(CHUNKS);
      expect(callsOf(calls, 'openBatch')).toHaveLength(1);
      const looked = callsOf(calls, 'checkPayout').map((c) => (c.input as { workflowId: string }).workflowId);
      expect(new Set(looked)).toEqual(new Set([...held].map(payoutWorkflowId)));
      // Each reference: one session, one confirm.
      expect(bank.sessions.size).toBe(rows.length);
      const confirmed = callsOf(calls, 'confirmSession').map(
        (c) => (c.input as { sessionId: string }).sessionId,
      );
      expect(confirmed).toHaveLength(rows.length);
      expect(new Set(confirmed).size).toBe(rows.length);
    });
    // Eight payouts through a continue-as-new: seconds alone, minutes beside other work.
  },
  workTimeout({ units: 8, perUnitMs: 10_000, floorMs: 120_000 }),
);
