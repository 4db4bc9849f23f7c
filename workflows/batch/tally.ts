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
  BatchRowState,
  BatchTally,
  PayoutLookup,
} from './contract';
import type { PayoutState, PayoutStatus } from '../payout/contract';
import { PAID_STATES } from '../payout/contract';
import { readPayoutEnding } from '../payout/ending';
import { referenceDifferences } from '../shared/reference';

const FAILURES_KEPT = 50;

/** Only the row's identity: callers pass richer objects (the batch's in-flight entries). */
const rowOf = (r: BatchInFlightRow): Pick<BatchRowOutcome, 'row' | 'reference' | 'amount'> => ({
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
  if (o.state === 'already_paid' || PAID_STATES.includes(o.state as PayoutState)) return;
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

/** A payout state as a row state: a payout still in progress has no place in a report. */
function rowState(state: PayoutState): BatchRowState {
  switch (state) {
    case 'succeeded':
    case 'credited':
    case 'returned':
    case 'failed':
    case 'rejected':
    case 'expired':
    case 'cancelled':
    case 'limit_exceeded':
    case 'needs_attention':
      return state;
    default:
      return 'needs_attention';
  }
}

/**
 * A payout's status as this batch's row outcome. A paid payout of another batch (or of no batch) is
 * `already_paid` when it paid the same payee the same amount (this batch did not pay it and must not
 * count its money as its own), and `reference_conflict` when the row asks for someone or something else.
 */
export function outcomeFromStatus(
  r: BatchInFlightRow,
  status: PayoutStatus,
  batchId: string,
): BatchRowOutcome {
  const ours = status.batchId === batchId;
  const paid = PAID_STATES.includes(status.state);
  const o: BatchRowOutcome = { ...rowOf(r), state: !ours && paid ? 'already_paid' : rowState(status.state) };
  if (status.bank.sessionId) o.sessionId = status.bank.sessionId;
  if (status.bank.payoutId) o.payoutId = status.bank.payoutId;
  if (status.bank.receiptLink) o.receiptLink = status.bank.receiptLink;
  if (status.failure) o.errorCode = status.failure.code;
  if (ours) {
    if (status.failure) o.reason = status.failure.reason;
    if (status.changes)
      o.events = { started: status.timestamps.started!, changes: status.changes, payee: status.payee };
    return o;
  }
  const by = status.batchId ? `batch ${status.batchId}` : 'a payout started outside any batch';
  if (paid && r.payee) {
    const differences = referenceDifferences(status, { amount: r.amount, payee: r.payee });
    if (differences.length)
      return {
        ...rowOf(r),
        state: 'reference_conflict',
        errorCode: 'reference_conflict',
        reason: `reference already paid by ${by} to another payee or amount (differs: ${differences.join(', ')}); nothing paid — give this row its own reference`,
      };
  }
  o.reason = paid
    ? `already paid by ${by} (state ${status.state}); not paid again`
    : `the earlier payout of this reference (${by}) ended ${status.state}${status.failure ? `: ${status.failure.reason}` : ''}`;
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
    case 'needs_attention': {
      const o = needsAttention(r, lookup.closeStatus, lookup.reason);
      if (lookup.status?.bank.sessionId) o.sessionId = lookup.status.bank.sessionId;
      return o;
    }
    default:
      return undefined;
  }
}

/** A child payout that did not complete: one of the payout's own endings carries its status; anything else needs a person. */
export function childFailureOutcome(f: BatchInFlightRow, err: unknown, batchId: string): BatchRowOutcome {
  if (!(err instanceof ChildWorkflowFailure)) throw err;
  const cause = err.cause;
  const ending = readPayoutEnding(cause instanceof ApplicationFailure ? cause : undefined);
  if (ending) return outcomeFromStatus(f, ending.status, batchId);
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
    `the payout workflow ended ${how} without an outcome; run \`payrun payout reconcile ${f.reference}\` to ask the bank`,
  );
}
