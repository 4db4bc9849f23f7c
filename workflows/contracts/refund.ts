import { defineQuery } from '@temporalio/workflow';
import { type PayoutFailure } from '../payout/contract';

// The refund workflow's contract: its id, input, status, endings and query.

/**
 * A refund's identity is its reference, as a payout's is: the workflow id must be `refund-<reference>`
 * (a run under any other id fails `invalid_input` before any bank call), so Temporal's one-run-per-id
 * rule and the earlier-runs check below stand between a reference and a second refund.
 */
export const refundWorkflowId = (reference: string) => `refund-${reference}`;

export type RefundState = 'requesting' | 'awaiting_refund' | 'refunded' | 'failed' | 'needs_attention';

export interface RefundInput {
  /** The refund's own reference (its identity, like a payout reference). */
  reference: string;
  /** A succeeded payment session. */
  sessionId: string;
  /** Kopecks; absent refunds the whole remaining amount. */
  amount?: number;
  pollAfterMs?: number;
}

export interface RefundStatus {
  reference: string;
  state: RefundState;
  sessionId: string;
  amount?: number;
  refundId?: string;
  failure?: PayoutFailure;
  timestamps: Record<string, string>;
  notes: string[];
}

export const refundStatusQuery = defineQuery<RefundStatus>('status');

/**
 * How a refund run that did not complete ends (a non-retryable ApplicationFailure whose first detail
 * is a RefundStatus). Completed means refunded.
 * - `refund_failed`: the bank refused session/refund; nothing was refunded, the reference may be tried again.
 * - `refund_already_done`: an earlier run of this reference refunded; the detail is that run's status.
 * - `refund_reference_conflict`: an earlier run of this reference refunded another session or amount.
 * - `refund_needs_attention`: an earlier run may have reached the bank and payrun cannot tell which
 *   refund is its own; an operator checks the session's refunds at the bank.
 */
export const REFUND_FAILED_TYPE = 'refund_failed';
export const REFUND_ALREADY_DONE_TYPE = 'refund_already_done';
export const REFUND_CONFLICT_TYPE = 'refund_reference_conflict';
export const REFUND_NEEDS_ATTENTION_TYPE = 'refund_needs_attention';

/** Another run of the same refund workflow id, as the guard at the start of every run reads it. */
export interface EarlierRefundRun {
  runId: string;
  closeStatus: string;
  /** refunded: completed (or refused as already done); not_refunded: provably moved nothing. */
  verdict: 'running' | 'refunded' | 'not_refunded' | 'in_doubt';
  status?: RefundStatus;
  /** In doubt: when its session/refund was scheduled (the bank's idempotency window counts from there). */
  firstBankCallAt?: string;
  /** When the run started and closed, as the server recorded them (no call of it can be earlier than its start). */
  startedAt?: string;
  closedAt?: string;
}

/** Reads a refund run's failure: its kind and status, or undefined if it is not one of ours. */
export function readRefundEnding(
  failure: unknown,
): { kind: 'refunded' | 'not_refunded' | 'in_doubt'; status: RefundStatus } | undefined {
  const f = failure as { type?: unknown; details?: unknown } | null | undefined;
  const status = Array.isArray(f?.details) ? (f.details[0] as RefundStatus | undefined) : undefined;
  if (!status || typeof status !== 'object') return undefined;
  if (f?.type === REFUND_ALREADY_DONE_TYPE || f?.type === REFUND_CONFLICT_TYPE)
    return { kind: 'refunded', status };
  if (f?.type === REFUND_FAILED_TYPE) return { kind: 'not_refunded', status };
  if (f?.type === REFUND_NEEDS_ATTENTION_TYPE) return { kind: 'in_doubt', status };
  return undefined;
}
