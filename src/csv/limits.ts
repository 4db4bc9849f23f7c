/**
 * The most one payout may be. A self-employed person may earn 2.4 million roubles a year under the
 * regime, so one payout above a million is almost always a mistyped amount (150 000 000,00 for
 * 150 000,00), and one such row would otherwise hold the whole batch waiting for funds.
 */
import { ConfigError } from '../config';
import { rublesToKopecks } from '../money';

/** 1 000 000,00 ₽ unless PAYRUN_MAX_PAYOUT says otherwise. */
export const DEFAULT_MAX_PAYOUT_KOPECKS = 1_000_000_00;

/** PAYRUN_MAX_PAYOUT: roubles as accounting writes them ("1 000 000", "250000,00"); undefined when unset. */
export function maxPayoutFromEnv(env: Record<string, string | undefined> = process.env): number | undefined {
  const text = env.PAYRUN_MAX_PAYOUT;
  if (text === undefined || text.trim() === '') return undefined;
  let kopecks = 0;
  try {
    kopecks = rublesToKopecks(text);
  } catch {
    // refused below, naming the variable
  }
  if (kopecks <= 0)
    throw new ConfigError([
      `PAYRUN_MAX_PAYOUT: the most one payout may be, in roubles (like "1 000 000" or "250000,00"), not "${text}"`,
    ]);
  return kopecks;
}

/** The limit a load uses: the one it was given, else PAYRUN_MAX_PAYOUT, else the default. */
export function payoutLimit(given: number | undefined): number {
  return given ?? maxPayoutFromEnv() ?? DEFAULT_MAX_PAYOUT_KOPECKS;
}
