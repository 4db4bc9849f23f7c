import { randomUUID } from 'node:crypto';
import { mapLimit } from '../../src/map-limit';
import { inboxQuery, type InboxView } from '../../workflows/contracts/inbox';
import { payoutStatusQuery } from '../../workflows/contracts/payout';
import { outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// Issue 23: 10 000 small forged signals took a payout past Temporal's signal-count limit; from then on
// the bank's genuine webhook got 503 on every resend. Now the ingress hands an event whose owner takes
// no more signals to the webhook inbox (which continues as new, so no flood of one run can fill it):
// the bank gets 200, the event is kept, and the payout settles by reading session/status.
describe('a flood of forged signals neither blocks the genuine webhook nor the payout', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('10 000 forged bankEvent signals: the payout is still paid once, the genuine webhook answered 200 and kept', async () => {
    const timings = stack.sandbox.sandbox.timings;
    const finishedMs = timings.paymentFinishedMs;
    timings.paymentFinishedMs = 3_600_000; // the bank pays an hour after the confirm
    try {
      const request = payoutRequest({ selfEmployed: false });
      const handle = await startPayout(stack, request, { pollAfterMs: 2_000 });
      await waitFor(
        async () => (await handle.query(payoutStatusQuery)).state === 'awaiting_result',
        60_000,
        'confirmed, waiting for the bank',
      );
      const { sessionId } = (await handle.query(payoutStatusQuery)).bank;

      // Four senders, not more: with 8–32 the test process's own worker twice died of Node's "async hook
      // stack has become corrupted" in its workflow thread (an open finding of issue 23, not hidden here:
      // docs/reliability.md).
      let refused = 0;
      await mapLimit(
        Array.from({ length: 10_000 }, (_, i) => i),
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
      // Past the server's limit (10 000 signals a run) some were refused: the flood really filled it.
      expect(refused).toBeGreaterThan(0);

      await stack.sandbox.advance(3_600_000); // the bank pays and sends payment_finished
      const paid = await outcome(handle);
      expect(paid.state).toBe('succeeded');
      expect(paidEntries(stack, request.reference)).toHaveLength(1);

      const genuine = () =>
        stack.sandbox
          .webhookAttempts()
          .filter((a) => a.session_id === sessionId && a.type === 'payment_finished');
      await waitFor(
        async () => genuine().some((a) => a.http_status === 200),
        60_000,
        'the webhook answered 200',
      );
      expect(genuine().filter((a) => a.http_status === 503)).toEqual([]);
      const inbox = stack.client.workflow.getHandle(`inbox-${stack.taskQueue}`);
      // Kept for the payout (pending while it runs), or as late once it had settled by polling.
      const kept = async () => {
        const view = await inbox.query<InboxView>(inboxQuery.name);
        return [...view.pending, ...view.late.last, ...view.orphaned.map((o) => o.event)];
      };
      await waitFor(
        async () => (await kept()).some((e) => e.sessionId === sessionId && e.type === 'payment_finished'),
        60_000,
        'the genuine payment_finished kept by the inbox',
      );
    } finally {
      timings.paymentFinishedMs = finishedMs;
    }
  }, 600_000);
});
