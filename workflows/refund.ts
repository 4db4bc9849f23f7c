import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBankActivities } from '../activities/bank';
import type { RoutingActivities } from '../activities/routing';
import type { PaymentSession, Refund } from '../src/bank/types/session';
import { refundsOf } from './shared/bank-session';
import { bankEventSignal } from './shared/bank-event-contract';
import {
  REFUND_ALREADY_DONE_TYPE,
  REFUND_CONFLICT_TYPE,
  REFUND_FAILED_TYPE,
  REFUND_NEEDS_ATTENTION_TYPE,
  refundStatusQuery,
  refundWorkflowId,
  type EarlierRefundRun,
  type RefundStatus,
} from './contracts/refund';
import { PAYOUT_REF, SESSION_ID, STATE } from './shared/search-attributes';
import { ageText, iso, workflowNow } from './shared/time';
import { invalidInput, parseBankEvent, parseRefundInput } from './validation';

import { REFUND_READ, REFUND_WRITE_ONCE, TEMPORAL_READ } from './shared/activity-options';

type Acts = ReturnType<typeof createBankActivities>;

const { refundSession } = proxyActivities<Acts>(REFUND_WRITE_ONCE);
const { getSession } = proxyActivities<Acts>(REFUND_READ);
const { earlierRefundRuns } = proxyActivities<RoutingActivities>(TEMPORAL_READ);

/** Histories recorded before the guard (id rule, earlier runs, identity key) replay the old way. */
const GUARD_PATCH = 'refund-at-most-once';
/** The bank honours an idempotency key for 24 hours; payrun relies on it for 23. */
const KEY_WINDOW_MS = 23 * 3_600_000;
const NOTES_KEPT = 50;
const SEEN_EVENTS_KEPT = 200;

/** The refund's own marker in session/refund's metadata, echoed back where the bank shows it. */
const metadataReference = (r: Refund): unknown =>
  (r as { metadata?: { payrun?: { reference?: unknown } } }).metadata?.payrun?.reference;

/**
 * Refunds a succeeded payment session, fully or partly, at most once per reference whoever starts it:
 * input and workflow id checked → earlier runs of the reference settled → session/refund under a key
 * derived from the refund's identity (reference and session, the same for every run) → payment_refunded
 * (or session/status when the webhook is lost) → refunded. docs/payouts.md, "A refund".
 */
export async function refundWorkflow(raw: unknown): Promise<RefundStatus> {
  const parsed = parseRefundInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  const { workflowId, runId, firstExecutionRunId } = workflowInfo();
  const expectedId = refundWorkflowId(input.reference);
  if (workflowId !== expectedId)
    throw invalidInput(
      `workflow id must be ${expectedId} for reference ${input.reference}, not ${workflowId}`,
    );

  const status: RefundStatus = {
    reference: input.reference,
    state: 'requesting',
    sessionId: input.sessionId,
    ...(input.amount !== undefined ? { amount: input.amount } : {}),
    timestamps: { started: iso() },
    notes: [],
  };
  const seen: string[] = [];
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
    if (status.notes.length > NOTES_KEPT) status.notes.splice(0, status.notes.length - NOTES_KEPT);
  };
  setHandler(refundStatusQuery, () => status);
  // Anyone who can reach Temporal can send this signal: it is checked, taken once, and only prompts a
  // read of the session from the bank; what the signal says about refunds is never believed.
  setHandler(bankEventSignal, (rawEvent) => {
    const event = parseBankEvent(rawEvent);
    if (!event.ok) return note(`ignored a malformed bankEvent signal: ${event.message}`);
    const evt = event.value;
    if (seen.includes(evt.id) || evt.sessionId !== input.sessionId) return;
    seen.push(evt.id);
    if (seen.length > SEEN_EVENTS_KEPT) seen.shift();
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
  const end = (type: string, message: string, details: RefundStatus = status): never => {
    throw ApplicationFailure.create({ message, type, details: [details], nonRetryable: true });
  };
  const needsAttention = (reason: string): never => {
    status.failure = { code: 'needs_attention', reason };
    setState('needs_attention');
    return end(REFUND_NEEDS_ATTENTION_TYPE, reason);
  };

  const guarded = patched(GUARD_PATCH);
  // Every run of this reference sends the same key: the bank answers a repeat with the first refund.
  const runKey = guarded ? `refund:${input.sessionId}` : firstExecutionRunId;
  if (guarded) {
    const adopted = settleEarlierRuns(await earlierRefundRuns({ workflowId, currentRunId: runId }));
    if (adopted) {
      status.refundId = adopted;
      note(
        `refund ${adopted} was requested by an earlier run of this reference: following it, not refunding again`,
      );
    }
  }

  if (!status.refundId) {
    let session: PaymentSession;
    try {
      const before = await getSession({ sessionId: input.sessionId });
      knownBefore = new Set(refundsOf(before).map((r) => r.id));
      const ours = guarded
        ? refundsOf(before).find((r) => metadataReference(r) === input.reference)
        : undefined;
      session = ours
        ? before
        : await refundSession({
            sessionId: input.sessionId,
            amount: input.amount,
            workflowId,
            runKey,
            reference: input.reference,
          });
      if (ours) {
        status.refundId = ours.id;
        note(`the bank already holds refund ${ours.id} for this reference: not refunding again`);
      }
    } catch (err) {
      const cause = (err instanceof ActivityFailure ? err.cause : undefined) as
        ApplicationFailure | undefined;
      status.failure = { code: cause?.type ?? 'refund_failed', reason: cause?.message ?? String(err) };
      // A refusal is the bank's answer: nothing refunded. Anything else (the calls kept failing for
      // hours) may have reached the bank; the identity key makes a later run safe within 24 hours.
      if (guarded && cause?.nonRetryable !== true)
        return needsAttention(`session/refund did not answer: ${status.failure.reason}`);
      setState('failed');
      return end(REFUND_FAILED_TYPE, `refund failed: ${status.failure.reason}`);
    }
    const ours = findOurs(session);
    if (ours) status.refundId = ours.id;
  }
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

  /**
   * Ends this run when an earlier run of the reference refunded; returns the refund id an earlier run in
   * doubt is known to have requested (this run follows it instead of asking for another).
   */
  function settleEarlierRuns(runs: EarlierRefundRun[]): string | undefined {
    const done = runs.find((r) => r.verdict === 'refunded' && r.status);
    if (done?.status) {
      const same = done.status.sessionId === input.sessionId && done.status.amount === input.amount;
      return same
        ? end(
            REFUND_ALREADY_DONE_TYPE,
            `refund ${input.reference} was already made (${done.status.refundId ?? 'see the earlier run'}); not refunded again`,
            done.status,
          )
        : end(
            REFUND_CONFLICT_TYPE,
            `reference ${input.reference} already refunded another session or amount; nothing refunded`,
            done.status,
          );
    }
    for (const run of runs.filter((r) => r.verdict === 'in_doubt')) {
      if (run.status?.refundId) return run.status.refundId;
      if (run.status && run.status.sessionId !== input.sessionId)
        return needsAttention(
          `an earlier run ${run.runId} of this reference asked to refund another session`,
        );
      // Its request, if it reached the bank, carried the key this run sends: the bank answers with that
      // refund. It asked no earlier than its session/refund was scheduled, and never before it started.
      const since = Date.parse(run.firstBankCallAt ?? run.startedAt ?? '');
      const age = workflowNow() - since;
      const asked = run.firstBankCallAt ? 'may have asked for a refund' : 'started';
      if (Number.isNaN(since))
        return needsAttention(
          `an earlier run ${run.runId} (${run.closeStatus}) may have asked for a refund and its history could not be read; check at the bank whether session ${input.sessionId} has a refund whose metadata names reference ${input.reference}`,
        );
      if (!(age < KEY_WINDOW_MS))
        return needsAttention(
          `an earlier run ${run.runId} (${run.closeStatus}) ${asked} ${ageText(age)} ago (${iso(since)}), beyond the 23 hours the bank's key is relied on; check at the bank whether session ${input.sessionId} has a refund whose metadata names reference ${input.reference}`,
        );
      note(
        `earlier run ${run.runId} (${run.closeStatus}) ${asked} ${ageText(age)} ago: if it reached the bank, this run's same key gets its refund`,
      );
    }
    return undefined;
  }
}
