/**
 * The most one payout may be. A self-employed person may earn 2.4 million roubles a year under the
 * regime, so one payout above a million is almost always a mistyped amount (150 000 000,00 for
 * 150 000,00), and one such row would otherwise hold the whole batch waiting for funds. The setting,
 * PAYRUN_MAX_PAYOUT, and its default are declared in src/config/process.ts.
 */
import { DEFAULT_MAX_PAYOUT_KOPECKS, loadMaxPayout } from '../config';

export { DEFAULT_MAX_PAYOUT_KOPECKS };

/** The limit a load uses: the one it was given, else PAYRUN_MAX_PAYOUT, else the default. */
export function payoutLimit(given: number | undefined): number {
  return given ?? loadMaxPayout() ?? DEFAULT_MAX_PAYOUT_KOPECKS;
}
