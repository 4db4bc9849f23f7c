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
