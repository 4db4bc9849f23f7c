import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import { kopecksSchema, nonBlank, referenceSchema } from '../../src/domain';
import { HOUR, millis, object, parseWith, type Result } from '../shared/parse';

// The refund workflow's contract: its id, input, status, endings and query.

/**
 * A refund's identity is its reference, as a payout's is: the workflow id must be `refund-<reference>`
 * (a run under any other id fails `invalid_input` before any bank call), so Temporal's one-run-per-id
 * rule and the earlier-runs check below stand between a reference and a second refund.
 */
export const refundWorkflowId = (reference: string) => `refund-${reference}`;

export const refundInputSchema = () =>
  object({
    /** The refund's own reference (its identity, like a payout reference). */
    reference: referenceSchema(),
    /** A succeeded payment session. */
    sessionId: nonBlank(128, 'a session id'),
    /** Kopecks; absent refunds the whole remaining amount. */
    amount: kopecksSchema().optional(),
    pollAfterMs: millis(100, HOUR).optional(),
  });
export type RefundInput = z.infer<ReturnType<typeof refundInputSchema>>;

export function parseRefundInput(raw: unknown): Result<RefundInput> {
  return parseWith<RefundInput>(refundInputSchema(), raw);
}

const REFUND_STATES = ['requesting', 'awaiting_refund', 'refunded', 'failed', 'needs_attention'] as const;

/** What the `status` query answers and a failed run's detail carries; written only by the refund itself. */
export const refundStatusSchema = () =>
  z.strictObject({
    reference: z.string(),
    state: z.enum(REFUND_STATES),
    sessionId: z.string(),
    amount: z.number().optional(),
    refundId: z.string().optional(),
    /** The bank's error code (or payrun's) and its words, as a payout's failure says them. */
    failure: z.strictObject({ code: z.string(), reason: z.string() }).optional(),
    timestamps: z.record(z.string(), z.string()),
    notes: z.array(z.string()),
  });
export type RefundStatus = z.infer<ReturnType<typeof refundStatusSchema>>;
export type RefundState = RefundStatus['state'];

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
