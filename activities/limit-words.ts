import { formatRubles } from '../src/money';
import type { LimitKind, UnprovenWhy } from '../workflows/recipient-ledger/contract';

// The words a refused reservation is said in (src/i18n/row-reasons.ts reads them back to translate them),
// for a payout before its session and for a scheduled row when it wakes.

const LIMIT_WORDS = {
  yearly_cap: 'the self-employed income cap for',
  per_payout: 'the per-payout limit of',
  per_month: 'the monthly limit of',
} as const;

/** A limit the payout's amount would pass: which, for which year, and what is left under it. */
export function limitReason(
  amountKopecks: number,
  over: { limit: LimitKind; limitKopecks: number; headroomKopecks: number; year: number },
): string {
  return (
    `${formatRubles(amountKopecks)} ₽ would pass ${LIMIT_WORDS[over.limit]} ${over.limit === 'yearly_cap' ? `${over.year}, ` : ''}` +
    `${formatRubles(over.limitKopecks)} ₽: ${formatRubles(over.headroomKopecks)} ₽ left; nothing was sent to the bank`
  );
}

/** The ledger could not prove the payout's run asked (it always should): nothing is paid, as for a limit. */
export function unprovenReason(answer: { unproven: UnprovenWhy; reason: string }): string {
  return `the recipient's ledger did not take the reservation as this payout's (${answer.unproven}: ${answer.reason}); nothing was sent to the bank`;
}
