/**
 * Moscow business days, as the bank dates its statements (UTC+3 all year since 2014). Pure: workflow
 * code uses it too. Business days are Monday to Friday; public holidays are not known here (the same
 * rule as workflows/shared/time.ts addBusinessDays), so a difference opened before a holiday ages a day early.
 */
const MSK_OFFSET_MS = 3 * 3600_000;
const DAY_MS = 86_400_000;
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The Moscow calendar date of an instant: 2026-11-23T21:30:00Z → 2026-11-24. */
export function moscowDay(ms: number): string {
  return new Date(ms + MSK_OFFSET_MS).toISOString().slice(0, 10);
}

/** A real calendar date written YYYY-MM-DD, or undefined (2026-02-30 is not one). */
export function parseDay(day: string): string | undefined {
  const m = DAY_RE.exec(day);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === day ? day : undefined;
}

/** The instant a Moscow day starts (UTC ms). */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) - MSK_OFFSET_MS;
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function isBusinessDay(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6;
}

/** Business days after `from` up to and including `to` (0 when `to` is not later). */
export function businessDaysBetween(from: string, to: string): number {
  let n = 0;
  for (let d = addDays(from, 1); d <= to; d = addDays(d, 1)) if (isBusinessDay(d)) n++;
  return n;
}

/** Every day after `after` up to and including `upTo`, oldest first, at most `max` of the latest. */
export function daysAfter(after: string, upTo: string, max: number): string[] {
  const days: string[] = [];
  for (let d = addDays(after, 1); d <= upTo; d = addDays(d, 1)) days.push(d);
  return days.slice(-max);
}
