/**
 * A scheduled row's date (`pay_on`, issue 42): a calendar day in Moscow time. Moscow has kept UTC+3 all
 * year since 2014, so a Moscow day starts at 21:00 UTC the day before; no time-zone table is needed, and
 * the workflows (which must not read one) compute the same instant. Pure and workflow-safe: no RegExp
 * exported (see rules.ts).
 */

const MOSCOW_OFFSET_MS = 3 * 3_600_000;

/** The hour of the Moscow day a scheduled row wakes at: midnight, the day's first moment. */
export const PAY_ON_WAKE_HOUR = 0;

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** A cell as accounting writes a date, ДД.ММ.ГГГГ or ISO YYYY-MM-DD, as YYYY-MM-DD; undefined if neither. */
export function readPayOn(text: string): string | undefined {
  const t = text.trim();
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(t);
  const iso = dotted ? `${dotted[3]}-${dotted[2]!.padStart(2, '0')}-${dotted[1]!.padStart(2, '0')}` : t;
  return isIsoDate(iso) ? iso : undefined;
}

/** The Moscow calendar day of an instant, YYYY-MM-DD. */
export function moscowDate(ms: number): string {
  return new Date(ms + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
}

/** The instant (ms since the epoch) a row scheduled for this Moscow day wakes: its PAY_ON_WAKE_HOUR. */
export function payOnWakeMs(isoDate: string): number {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d, PAY_ON_WAKE_HOUR) - MOSCOW_OFFSET_MS;
}

/** The last day a row may be scheduled for, seen from `today`: the same day a year on (29 Feb → 28 Feb). */
export function lastPayOn(today: string): string {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y + 1, m - 1, d));
  if (next.getUTCMonth() !== m - 1) next.setUTCDate(0);
  return next.toISOString().slice(0, 10);
}

/** Why a date may not be a row's pay_on seen from `today`, or undefined: not in the past, at most a year ahead. */
export function payOnRule(payOn: string, today: string): 'pay_on_past' | 'pay_on_too_far' | undefined {
  if (payOn < today) return 'pay_on_past';
  if (payOn > lastPayOn(today)) return 'pay_on_too_far';
  return undefined;
}
