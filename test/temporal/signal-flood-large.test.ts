import { underLoad } from '../harness/budget';
import { randomUUID } from 'node:crypto';
import { runsOfWorkflowIdQuery } from '../../src/batch/services/lookup';
import { payoutStatusQuery } from '../../workflows/payout/contract';
import { ALREADY_PAID_TYPE } from '../../workflows/payout/ending';
import { confirmedPayout } from '../harness/floods';
import { failureType, outcome, paidEntries, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

/** Just under Temporal's 2 MB blob limit (limit.blobSize.error), with room for the codec's envelope. */
const SIGNAL_BYTES = 1_900_000;
/** 28 of them are 53 MB: past the 50 MB history size at which the server terminates a run (limit.historySize.error). */
const SIGNALS = 28;

// Issue 23: 28 forged signals of 1.9 MB each made the server terminate a confirmed payout (history size
// limit), and later runs of the reference could not read the flooded history in time. Now a payout near
// Temporal's history limits continues as new with its state (bank session, step, deadline), so no run
// grows to the limit; the earlier-runs guard reads the chain as one payout.
describe('a flood of the largest signals the server accepts does not kill a payout', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it(
    '53 MB of forged signals: the payout is paid once, status answers, a later run settles',
    async () => {
      const timings = stack.sandbox.sandbox.timings;
      const finishedMs = timings.paymentFinishedMs;
      timings.paymentFinishedMs = 3_600_000; // the bank pays an hour after the confirm
      try {
        const { request, handle, sessionId } = await confirmedPayout(stack);

        // One signal at a time, each sent once the payout has taken the one before. Sent faster, two of
        // them buffered while a workflow task runs are over the server's 2 MiB of buffered events
        // (history.maximumBufferedEventsSizeInBytes), and it fails that task: a flood at full speed still
        // starves the payout of workflow tasks until the run is terminated — open, docs/reliability.md.
        const big = 'x'.repeat(SIGNAL_BYTES);
        let refused = 0;
        for (let i = 0; i < SIGNALS; i++) {
          const forged = `ps_forged_${i}_${randomUUID().slice(0, 8)}`;
          await handle
            .signal('bankEvent', {
              id: `forged-${i}-${randomUUID()}`,
              type: 'payment_finished',
              sessionId: forged,
              receivedAt: new Date().toISOString(),
              body: big,
            } as never)
            .catch(() => refused++);
          await waitFor(
            async () => (await handle.query(payoutStatusQuery)).notes.some((n) => n.includes(forged)),
            underLoad(60_000),
            `the payout took forged signal ${i}`,
          );
        }
        // Every signal was stored: more than a single run may hold, so the payout continued as new.
        expect(refused).toBe(0);
        const runs = async () => {
          const found: string[] = [];
          for await (const wf of stack.client.workflow.list({
            query: runsOfWorkflowIdQuery(handle.workflowId),
          }))
            found.push(wf.status.name);
          return found;
        };
        // Visibility learns of a closed run a moment after the history does.
        await waitFor(
          async () => (await runs()).includes('CONTINUED_AS_NEW'),
          underLoad(60_000),
          'the flooded run continued as new',
        );
        expect((await handle.query(payoutStatusQuery)).state).toBe('awaiting_result');

        await stack.sandbox.advance(3_600_000); // the bank pays and sends payment_finished
        const paid = await outcome(handle);
        expect(paid).toMatchObject({ state: 'succeeded', bank: { sessionId } });
        expect(paidEntries(stack, request.reference)).toHaveLength(1);
        expect(await runs()).not.toContain('TERMINATED');
        const genuine = stack.sandbox
          .webhookAttempts()
          .filter((a) => a.session_id === sessionId && a.type === 'payment_finished');
        expect(genuine.some((a) => a.http_status === 200)).toBe(true);
        // `payout status` answers for the closed chain (its latest run).
        expect(
          await stack.client.workflow.getHandle(handle.workflowId).query(payoutStatusQuery),
        ).toMatchObject({
          state: 'succeeded',
          bank: { sessionId },
        });

        // A later run of the same reference settles with the chain instead of paying again.
        const again = await startPayout(stack, request);
        expect(await failureType(again)).toBe(ALREADY_PAID_TYPE);
        expect(paidEntries(stack, request.reference)).toHaveLength(1);
      } finally {
        timings.paymentFinishedMs = finishedMs;
      }
    },
    underLoad(600_000),
  );
});
