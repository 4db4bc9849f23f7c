import { addDays } from './days';
import type { ReconcileStore } from './store';

/**
 * Days of an account that are not reconciled: every day whose statement never came
 * (`statement_unavailable`), and every day from the first one reconciliation ever ran for that has
 * no outcome at all (the schedule never ran it), up to the day before yesterday: yesterday is the
 * morning run's to do (docs/reconciliation.md). "Reconciled up to" the latest day says nothing of the
 * days before it; this list does, and the metric and its alert count it. Two listings of the store,
 * then one read per day not reconciled (the metric reads it at every scrape).
 */
export interface UnreconciledDay {
  day: string;
  why: 'statement_unavailable' | 'never_reconciled';
  error?: string;
}

export async function unreconciledDays(
  store: ReconcileStore,
  account: string,
  today: string,
): Promise<UnreconciledDay[]> {
  const days = await store.outcomeDays(account);
  if (days.length === 0) return [];
  const withOutcome = new Set(days);
  const reconciled = new Set(await store.reconciledDays(account));
  const yesterday = addDays(today, -1);
  const last = [yesterday, days.at(-1)!].sort().at(-1)!;
  const out: UnreconciledDay[] = [];
  for (let day = days[0]!; day <= last; day = addDays(day, 1)) {
    if (reconciled.has(day)) continue;
    if (!withOutcome.has(day)) {
      if (day < yesterday) out.push({ day, why: 'never_reconciled' });
      continue;
    }
    const error = (await store.readDayOutcome(account, day))?.error;
    out.push({ day, why: 'statement_unavailable', ...(error ? { error } : {}) });
  }
  return out;
}
