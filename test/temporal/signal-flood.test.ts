import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { mapLimit } from '../../src/map-limit';
import type { payoutWorkflow } from '../../workflows/payout/workflow';
import { ALREADY_PAID_TYPE } from '../../workflows/payout/ending';
import {
  confirmedPayout,
  expectGenuineWebhookTaken,
  expectKeptByInbox,
  whileTheBankWaits,
} from '../harness/floods';
import { workTimeout } from '../harness/budget';
import { failureType, outcome, paidEntries, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { killHard, spawnWorkerProcess, superviseWorkerProcess } from '../harness/worker-process';

// Issue 23: 10 000 small forged signals took a payout past Temporal's signal-count limit; from then on
// the bank's genuine webhook got 503 on every resend. Two defences, one test each:
// - a payout whose history nears Temporal's limits continues as new with its state, so a flood it keeps
//   up with never fills a run;
// - when a run does take no more signals (a flood faster than its worker), the ingress hands the event to
//   the webhook inbox (which continues as new, so no flood of one run can fill it): the bank gets 200,
//   the event is kept, and the payout settles by reading session/status.

const FLOOD = 10_000;
// Each flood's whole test from its signals, as the load allows (the floors: what a quiet machine needs).
const FLOOD_TIMEOUT = workTimeout({ units: FLOOD, perUnitMs: 30, floorMs: 600_000 });
const FLOODED_RUN_TIMEOUT = workTimeout({ units: FLOOD, perUnitMs: 45, floorMs: 900_000 });

/** Sends forged bankEvent signals from four senders; returns how many the server refused. */
async function flood(handle: WorkflowHandle<typeof payoutWorkflow>, count: number): Promise<number> {
  // Four senders, not more: with 8–32 the worker twice died of Node's "async hook stack has become
  // corrupted" in its workflow thread, and once with four under a loaded full run (an open finding of
  // issue 23, not hidden here: docs/reliability.md).
  let refused = 0;
  await mapLimit(
    Array.from({ length: count }, (_, i) => i),
    4,
    async (i) => {
      await handle
        .signal('bankEvent', {
          id: `forged-${i}-${randomUUID()}`,
          type: 'payment_finished',
          sessionId: `ps_forged_${i}`,
          receivedAt: new Date().toISOString(),
        } as never)
        .catch(() => refused++);
    },
  );
  return refused;
}

describe('a flood of forged signals neither blocks the genuine webhook nor the payout', () => {
  describe('the payout keeps up with the flood', () => {
    let stack: Stack;
    let worker: ReturnType<typeof superviseWorkerProcess> | undefined;
    beforeAll(async () => {
      // The worker in a process of its own under a supervisor, as in production: Node has twice died of
      // "async hook stack has become corrupted" in a worker's workflow thread under such a flood (open,
      // docs/reliability.md). In this test process that killed the whole suite; there, it is a worker crash
      // like any other, started again, and the money must still hold.
      stack = await startStack({ inProcessWorker: false });
      worker = superviseWorkerProcess(stack.workerEnv, 'signal-flood');
    });
    afterAll(async () => {
      await worker?.stop();
      await stack?.stop();
    });

    it(
      '10 000 forged bankEvent signals: the payout is still paid once, the genuine webhook answered 200',
      () =>
        whileTheBankWaits(stack, async () => {
          const { request, handle, sessionId } = await confirmedPayout(stack);
          const refused = await flood(handle, FLOOD);
          // The flood really reached a run's limits: the payout continued as new (its history near
          // Temporal's limits), or, on a machine where the worker fell behind, the server refused signals
          // past 10 000 a run. Which comes first is the machine's timing; one of them must have happened.
          const continued = (await handle.describe()).runId !== handle.firstExecutionRunId;
          expect({ refused: refused > 0, continued }).not.toEqual({ refused: false, continued: false });

          await stack.sandbox.advance(3_600_000); // the bank pays and sends payment_finished
          const paid = await outcome(handle);
          expect(paid.state).toBe('succeeded');
          expect(paidEntries(stack, request.reference)).toHaveLength(1);
          await expectGenuineWebhookTaken(stack, sessionId);
        }),
      FLOOD_TIMEOUT,
    );
  });

  describe('the flood fills a run before its worker can continue it as new', () => {
    let stack: Stack;
    let worker: ChildProcess | undefined;
    beforeAll(async () => {
      stack = await startStack({ inProcessWorker: false });
    });
    afterAll(async () => {
      if (worker) await killHard(worker);
      await stack?.stop();
    });

    it(
      'the run takes no more signals: the genuine webhook is answered 200 and kept by the inbox, the reference paid once',
      () =>
        whileTheBankWaits(stack, async () => {
          worker = spawnWorkerProcess(stack.workerEnv);
          const { request, handle, sessionId } = await confirmedPayout(stack);
          // With its worker gone the run cannot continue as new: the server takes signals until the
          // run's limit (history.maximumSignalsPerExecution), then refuses the rest.
          await killHard(worker);
          worker = undefined;
          const refused = await flood(handle, FLOOD + 200);
          expect(refused).toBeGreaterThan(0);
          expect((await handle.describe()).runId).toBe(handle.firstExecutionRunId);

          await stack.sandbox.advance(3_600_000); // the bank pays and sends payment_finished
          await expectGenuineWebhookTaken(stack, sessionId);

          // The run now holds 10 000 signals. A returning worker must replay them all in one workflow task
          // before the payout can continue as new; on a quiet machine it then settles in seconds, but once,
          // under the whole suite's load, it had not settled 14 minutes later (open: docs/reliability.md). So
          // the on-call engineer's way out is tested: terminate the flooded run; the next run of the
          // reference reads its history, asks the bank, and ends "already paid" with one payout.
          worker = spawnWorkerProcess(stack.workerEnv);
          await handle.terminate('flooded with forged signals: settled by the next run');
          const again = await startPayout(stack, request);
          expect(await failureType(again)).toBe(ALREADY_PAID_TYPE);
          expect(paidEntries(stack, request.reference)).toHaveLength(1);
          await expectKeptByInbox(stack, sessionId);
        }),
      FLOODED_RUN_TIMEOUT,
    );
  });
});
