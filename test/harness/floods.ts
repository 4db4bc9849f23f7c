import { inboxQuery, type InboxView } from '../../workflows/webhook-inbox/contract';
import { payoutStatusQuery } from '../../workflows/payout/contract';
import { payoutRequest, startPayout } from './payouts';
import type { Stack } from './stack';
import { waitFor } from './wait';

// What the signal-flood suites share (issue 23): a payout confirmed and waiting for the bank, and what
// became of the bank's genuine webhook once the flood was over.

/** Runs `test` while the bank pays an hour after the confirm, so a flood has a waiting payout to hit. */
export async function whileTheBankWaits<T>(stack: Stack, test: () => Promise<T>): Promise<T> {
  const timings = stack.sandbox.sandbox.timings;
  const finishedMs = timings.paymentFinishedMs;
  timings.paymentFinishedMs = 3_600_000;
  try {
    return await test();
  } finally {
    timings.paymentFinishedMs = finishedMs;
  }
}

/** A plain payout confirmed at the bank and waiting for its result (poll every 2 s). */
export async function confirmedPayout(stack: Stack) {
  const request = payoutRequest({ selfEmployed: false });
  const handle = await startPayout(stack, request, { pollAfterMs: 2_000 });
  await waitFor(
    async () => (await handle.query(payoutStatusQuery)).state === 'awaiting_result',
    120_000,
    'confirmed, waiting for the bank',
  );
  const { sessionId } = (await handle.query(payoutStatusQuery)).bank;
  return { request, handle, sessionId: sessionId! };
}

/** The bank's payment_finished webhooks for the session. */
export function genuineWebhooks(stack: Stack, sessionId: string) {
  return stack.sandbox
    .webhookAttempts()
    .filter((a) => a.session_id === sessionId && a.type === 'payment_finished');
}

/** The bank's payment_finished for the session answered 200 at last, and never 503. */
export async function expectGenuineWebhookTaken(stack: Stack, sessionId: string): Promise<void> {
  await waitFor(
    async () => genuineWebhooks(stack, sessionId).some((a) => a.http_status === 200),
    60_000,
    'the webhook answered 200',
  );
  expect(genuineWebhooks(stack, sessionId).filter((a) => a.http_status === 503)).toEqual([]);
}

/** The webhook inbox holds the session's payment_finished: pending for a payout, late, or orphaned. */
export async function expectKeptByInbox(stack: Stack, sessionId: string): Promise<void> {
  const inbox = stack.client.workflow.getHandle(`inbox-${stack.taskQueue}`);
  await waitFor(
    async () => {
      const view = await inbox.query<InboxView>(inboxQuery.name);
      return [...view.pending, ...view.late.last, ...view.orphaned.map((o) => o.event)].some(
        (e) => e.sessionId === sessionId && e.type === 'payment_finished',
      );
    },
    120_000,
    'the genuine payment_finished kept by the inbox',
  );
}
