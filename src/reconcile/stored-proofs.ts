import type { PayrunPayout } from './match';
import type { ReconcileStore } from './store';

/**
 * A payout as reconciliation recorded it in a day's sealed payouts, with the signed payment_finished
 * bodies copied from its history: newest day first, every account. A person's command reads this when
 * the namespace's retention has removed the payout's history (one sealed file per reconciled day).
 */
export async function storedPayout(
  store: ReconcileStore,
  reference: string,
): Promise<PayrunPayout | undefined> {
  for (const account of await store.accounts())
    for (const day of (await store.outcomeDays(account)).reverse()) {
      const payouts = (await store.readDayInput<PayrunPayout[]>(account, day, 'payouts')) ?? [];
      const found = payouts.find((p) => p.reference === reference && p.finishes?.length);
      if (found) return found;
    }
  return undefined;
}
