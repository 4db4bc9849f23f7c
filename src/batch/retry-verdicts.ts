import type { BatchOptions } from '../../workflows/contracts/batch';

/** A taxpayer's verdict that refused a row: the person may since have linked payrun's partner (or registered). */
const VERDICT_REFUSALS = ['not_linked', 'not_self_employed'];

/**
 * A retry of rows the taxpayer check refused asks the bank afresh (payouts otherwise reuse a verdict for
 * 24 hours): the verdict that refused them is what the retry is meant to get past (docs/payouts.md#linking).
 */
export function freshVerdicts(
  rows: { row: number }[],
  outcomes: Map<number, { errorCode?: string }>,
  options: BatchOptions | undefined,
): BatchOptions | undefined {
  if (!rows.some((r) => VERDICT_REFUSALS.includes(outcomes.get(r.row)?.errorCode ?? ''))) return options;
  return { ...options, payout: { ...options?.payout, taxpayerCheckMaxAgeMs: 0 } };
}
