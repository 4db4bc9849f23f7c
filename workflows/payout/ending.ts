import type { PayoutStatus } from './contract';

/**
 * How a payout workflow that did not complete says what became of the money. Completed means paid.
 * Every other ending is a non-retryable ApplicationFailure whose `type` is one of these and whose first
 * detail is the PayoutStatus; the batch, the look-ups and the CLI read it through `readPayoutEnding`.
 *
 * - `payout_<state>` for failed, rejected, expired, cancelled: provably moved no money, so the reference
 *   may be paid by a later run (Temporal's ALLOW_DUPLICATE_FAILED_ONLY lets it start).
 * - `payout_needs_attention`: the run could not tell; `payrun payout reconcile REF` asks the bank.
 * - `payout_already_paid` / `reference_conflict`: a run refused because an earlier run of the same
 *   reference paid; the detail is that earlier run's status.
 */
export const NOT_PAID_STATES = ['failed', 'rejected', 'expired', 'cancelled', 'limit_exceeded'] as const;
export type NotPaidState = (typeof NOT_PAID_STATES)[number];

export const NEEDS_ATTENTION_TYPE = 'payout_needs_attention';
export const ALREADY_PAID_TYPE = 'payout_already_paid';
export const REFERENCE_CONFLICT_TYPE = 'reference_conflict';

export const notPaidType = (state: NotPaidState) => `payout_${state}`;

export type PayoutEnding =
  | { kind: 'not_paid'; status: PayoutStatus }
  | { kind: 'needs_attention'; status: PayoutStatus }
  /** A refused duplicate run: `status` is the earlier run's, which paid. */
  | { kind: 'paid'; status: PayoutStatus };

/** Reads a payout workflow's failure (the ApplicationFailure that closed it); undefined if it is not one of ours. */
export function readPayoutEnding(failure: unknown): PayoutEnding | undefined {
  const f = failure as { type?: unknown; details?: unknown } | null | undefined;
  const type = typeof f?.type === 'string' ? f.type : undefined;
  const status = Array.isArray(f?.details) ? (f.details[0] as PayoutStatus | undefined) : undefined;
  if (!type || !status || typeof status !== 'object') return undefined;
  if (type === NEEDS_ATTENTION_TYPE) return { kind: 'needs_attention', status };
  if (type === ALREADY_PAID_TYPE || type === REFERENCE_CONFLICT_TYPE) return { kind: 'paid', status };
  if ((NOT_PAID_STATES as readonly string[]).map((s) => `payout_${s}`).includes(type))
    return { kind: 'not_paid', status };
  return undefined;
}

/**
 * Long numbers in a bank's words (card, account, phone, tax numbers) keep only their last four digits,
 * written together or with spaces, dashes, dots or brackets between digits (`+7 (912) 345-67-89`). An
 * identifier of letters and hex (`batch-a7b5f60841095857`, a bank session's id) is not a number: its
 * digits once came out masked, and the id unreadable, when the hex held ten digits in a row.
 */
export function maskNumbers(text: string): string {
  const identifierOrNumber = /\b[a-z]{2,}[-_](?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b|\+?\d(?:[\s().-]{0,2}\d){9,}/g;
  return text.replace(identifierOrNumber, (run) => {
    if (!/^\+?\d/.test(run)) return run; // an identifier
    if (/\d{4}-\d{2}-\d{2}/.test(run)) return run; // a date and what follows it, not a number
    let keep = 4;
    return [...run]
      .reverse()
      .map((ch) => (/\d/.test(ch) ? (keep-- > 0 ? ch : '*') : ch))
      .reverse()
      .join('');
  });
}
