/**
 * Workflow time. Inside Temporal's workflow sandbox `Date` is replaced by the time of the current
 * workflow task, so this is deterministic on replay; workflows call this instead of Date.now().
 */
export function workflowNow(): number {
  return new Date().getTime();
}

export function iso(ms: number = workflowNow()): string {
  return new Date(ms).toISOString();
}

/** A duration as people read it, to the unit that matters: "42 s", "5 min", "3 h 20 min", "2 d 4 h". */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

/** `days` business days (Monday–Friday, public holidays not counted) after `fromMs`, in ms. */
export function addBusinessDays(fromMs: number, days: number): number {
  const DAY = 86_400_000;
  let t = fromMs;
  let left = days;
  while (left > 0) {
    t += DAY;
    const weekday = new Date(t).getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return t;
}
