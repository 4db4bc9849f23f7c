/**
 * The dry run per pay-on date (issue 42): how much leaves on each date, and whether today's deposit holds
 * everything due up to it. Rows without a date pay now and come first. Pure.
 */
import { t, type Lang } from '../../i18n';

export interface DateLine {
  /** YYYY-MM-DD; absent: the rows that pay now. */
  payOn?: string;
  rows: number;
  kopecks: number;
  /** This date's and every earlier date's amounts. */
  cumulative: number;
  /** Today's deposit covers `cumulative` (top-ups before the date are not foreseen). */
  holds: boolean;
}

/** One line per date, in date order; none when no row has a date (the usual file reads as before). */
export function planByDate(
  paying: readonly { amount: number; payOn?: string }[],
  balanceKopecks: number,
): DateLine[] {
  if (!paying.some((r) => r.payOn)) return [];
  const byDate = new Map<string, { rows: number; kopecks: number }>();
  for (const r of paying) {
    const d = byDate.get(r.payOn ?? '') ?? { rows: 0, kopecks: 0 };
    d.rows++;
    d.kopecks += r.amount;
    byDate.set(r.payOn ?? '', d);
  }
  let cumulative = 0;
  return [...byDate.keys()].sort().map((date) => {
    const d = byDate.get(date)!;
    cumulative += d.kopecks;
    return { ...(date ? { payOn: date } : {}), ...d, cumulative, holds: balanceKopecks >= cumulative };
  });
}

/** The per-date lines as the terminal and the console's check page show them. */
export function dateLinesText(lines: readonly DateLine[] | undefined, lang?: Lang): string[] {
  if (!lines?.length) return [];
  return [t('schedule.heading', {}, lang), ...lines.map((l) => t('schedule.date_line', l, lang))];
}
