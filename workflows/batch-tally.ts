import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/workflow';
import type {
  BatchFailure,
  BatchInFlightRow,
  BatchRowOutcome,
  BatchTally,
  PayoutLookup,
  PayoutStatus,
} from './definitions';

const PAID_STATES = ['succeeded', 'credited', 'returned'];
const FAILURES_KEPT = 50;

/** Only the row's identity: callers pass richer objects (the batch's in-flight entries). */
const rowOf = (r: BatchInFlightRow): BatchInFlightRow => ({
  row: r.row,
  reference: r.reference,
  amount: r.amount,
});

export function emptyTally(): BatchTally {
  return { counts: {}, amounts: {}, failures: [], failureCount: 0 };
}

/** Counts and kopecks by state plus a bounded failure list; the full results go to the batch store. */
export function addToTally(t: BatchTally, o: BatchRowOutcome): void {
  t.counts[o.state] = (t.counts[o.state] ?? 0) + 1;
  t.amounts[o.state] = (t.amounts[o.state] ?? 0) + o.amount;
  if (o.state === 'already_paid' || PAID_STATES.includes(o.state)) return;
  t.failureCount++;
  if (t.failures.length < FAILURES_KEPT) {
    const f: BatchFailure = { row: o.row, reference: o.reference, state: o.state };
    if (o.errorCode) f.code = o.errorCode;
    if (o.reason) f.reason = o.reason;
    t.failures.push(f);
  }
}

export function finishedCount(t: BatchTally): number {
  return Object.values(t.counts).reduce((a, b) => a + b, 0);
}

/**
 * A payout's status as this batch's row outcome. A paid payout of another batch (or of no batch) is
 * `already_paid`: this batch did not pay it and must not count its money as its own.
 */
export function outcomeFromStatus(
  r: BatchInFlightRow,
  status: PayoutStatus,
  batchId: string,
): BatchRowOutcome {
  const ours = status.batchId === batchId;
  const paid = PAID_STATES.includes(status.state);
  const o: BatchRowOutcome = { ...rowOf(r), state: !ours && paid ? 'already_paid' : status.state };
  if (status.bank.sessionId) o.sessionId = status.bank.sessionId;
  if (status.bank.payoutId) o.payoutId = status.bank.payoutId;
  if (status.bank.receiptLink) o.receiptLink = status.bank.receiptLink;
  if (status.failure) o.errorCode = status.failure.code;
  if (ours) {
    if (status.failure) o.reason = status.failure.reason;
  } else {
    const by = status.batchId ? `batch ${status.batchId}` : 'a payout started outside any batch';
    o.reason = paid
      ? `already paid by ${by} (state ${status.state}); not paid again`
      : `the earlier payout of this reference (${by}) ended ${status.state}${status.failure ? `: ${status.failure.reason}` : ''}`;
  }
  return o;
}

export function needsAttention(r: BatchInFlightRow, closeStatus: string, reason: string): BatchRowOutcome {
  return { ...rowOf(r), state: 'needs_attention', errorCode: `payout_${closeStatus}`, reason };
}

/** A finished lookup as an outcome; undefined when the reference has no payout or may be paid again. */
export function outcomeFromLookup(
  r: BatchInFlightRow,
  lookup: PayoutLookup,
  batchId: string,
): BatchRowOutcome | undefined {
  switch (lookup.kind) {
    case 'paid':
    case 'not_paid':
      return outcomeFromStatus(r, lookup.status, batchId);
    case 'needs_attention':
      return needsAttention(r, lookup.closeStatus, lookup.reason);
    default:
      return undefined;
  }
}

/** A child payout that did not complete: a clean `payout_*` failure carries its status; anything else needs a person. */
export function childFailureOutcome(f: BatchInFlightRow, err: unknown, batchId: string): BatchRowOutcome {
  if (!(err instanceof ChildWorkflowFailure)) throw err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type?.startsWith('payout_') && cause.details?.[0])
    return outcomeFromStatus(f, cause.details[0] as PayoutStatus, batchId);
  const how =
    cause instanceof TerminatedFailure
      ? 'terminated'
      : cause instanceof TimeoutFailure
        ? 'timed_out'
        : cause instanceof CancelledFailure
          ? 'cancelled'
          : 'failed';
  return needsAttention(
    f,
    how,
    `the payout workflow ended ${how} without an outcome; check the bank before paying again`,
  );
}
