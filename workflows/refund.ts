import {
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBankActivities } from '../activities/bank';
import type { PaymentSession, Refund } from '../src/bank/types/session';
import { refundsOf } from './bank-session';
import { bankEventSignal } from './contracts/bank-event';
import { refundStatusQuery, type RefundInput, type RefundStatus } from './contracts/refund';
import { PAYOUT_REF, SESSION_ID, STATE } from './search-attributes';
import { iso } from './time';
import { parseBankEvent } from './validation';

import { REFUND_READ, REFUND_WRITE_ONCE } from './activity-options';

type Acts = ReturnType<typeof createBankActivities>;

const { refundSession } = proxyActivities<Acts>(REFUND_WRITE_ONCE);
const { getSession } = proxyActivities<Acts>(REFUND_READ);

/**
 * Refunds a succeeded payment session, fully or partly, once: session/refund under a key derived
 * from this workflow, then payment_refunded (or session/status when the webhook is lost) → refunded.
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundStatus> {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  const status: RefundStatus = {
    reference: input.reference,
    state: 'requesting',
    sessionId: input.sessionId,
    ...(input.amount !== undefined ? { amount: input.amount } : {}),
    timestamps: { started: iso() },
    notes: [],
  };
  const seen = new Set<string>();
  /** A payment_refunded for the session arrived: read session/status (a signal proves nothing by itself). */
  let nudged = false;
  let knownBefore = new Set<string>();
  // Refunds that existed before ours are not ours: the answer to session/refund names the new one.
  const findOurs = (session: PaymentSession): Refund | undefined =>
    refundsOf(session).find((r) => r.id === status.refundId) ??
    (status.refundId ? undefined : refundsOf(session).find((r) => !knownBefore.has(r.id)));
  const accepted = (r: Refund) => r.status === 'accepted';
  const note = (text: string) => {
    status.notes.push(`${iso()} ${text}`);
    if (status.notes.length > 50) status.notes.splice(0, status.notes.length - 50);
  };
  setHandler(refundStatusQuery, () => status);
  // Anyone who can reach Temporal can send this signal: it is checked, taken once, and only prompts a
  // read of the session from the bank; what the signal says about refunds is never believed.
  setHandler(bankEventSignal, (raw) => {
    const parsed = parseBankEvent(raw);
    if (!parsed.ok) return note(`ignored a malformed bankEvent signal: ${parsed.message}`);
    const evt = parsed.value;
    if (seen.has(evt.id) || evt.sessionId !== input.sessionId) return;
    seen.add(evt.id);
    if (evt.type === 'payment_refunded') nudged = true;
  });
  upsertSearchAttributes([
    { key: PAYOUT_REF, value: input.reference },
    { key: SESSION_ID, value: input.sessionId },
    { key: STATE, value: status.state },
  ]);
  const setState = (state: RefundStatus['state']) => {
    status.state = state;
    upsertSearchAttributes([{ key: STATE, value: state }]);
  };

  let session: PaymentSession;
  try {
    knownBefore = new Set(refundsOf(await getSession({ sessionId: input.sessionId })).map((r) => r.id));
    session = await refundSession({
      sessionId: input.sessionId,
      amount: input.amount,
      workflowId,
      runKey: firstExecutionRunId,
      reference: input.reference,
    });
  } catch (err) {
    const cause = (err as { cause?: ApplicationFailure }).cause;
    status.failure = { code: cause?.type ?? 'refund_failed', reason: cause?.message ?? String(err) };
    setState('failed');
    throw ApplicationFailure.create({
      message: `refund failed: ${status.failure.reason}`,
      type: 'refund_failed',
      details: [status],
      nonRetryable: true,
    });
  }
  const ours = findOurs(session);
  if (ours) status.refundId = ours.id;
  status.timestamps.requested = iso();
  setState('awaiting_refund');

  let interval = input.pollAfterMs ?? 60_000;
  for (;;) {
    const prompted = await condition(() => nudged, interval);
    nudged = false;
    const current = findOurs(await getSession({ sessionId: input.sessionId }));
    if (current) status.refundId ??= current.id;
    if (current && accepted(current)) {
      if (!prompted) note('refund accepted per session/status (webhook late or lost)');
      break;
    }
    if (!prompted) interval = Math.min(interval * 2, 3_600_000);
  }
  status.timestamps.refunded = iso();
  setState('refunded');
  return status;
}
