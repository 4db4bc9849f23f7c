import { Gauge, type Registry } from 'prom-client';
import { loadDataDir } from '../config';
import { businessDaysBetween, moscowDay } from '../reconcile/days';
import { DIFFERENCE_KIND_NAMES } from '../reconcile/kinds';
import { createLogger } from '../logger';
import { reconcileStoreFor } from '../reconcile/store/open';
import type { DifferenceRecord } from '../reconcile/store';
import { metricSource } from './source';
import { unreconciledDays } from '../reconcile/unreconciled';

const log = createLogger('metrics');

/**
 * Open reconciliation differences, read from the reconciliation store at every scrape (so a restarted
 * worker reports them at once, and a difference resolved from the CLI drops out without the worker):
 * how many by account and kind, and the age of the oldest in Moscow business days, which the
 * PayrunReconciliationDifferenceOld alert watches (deploy/prometheus/reconciliation.yml); and the days
 * not reconciled (no statement, or never run), which PayrunReconciliationDaysUnreconciled watches.
 */
/** What one scrape reads of one account. */
interface AccountRead {
  account: string;
  open: DifferenceRecord[];
  unreconciled: number;
}

export function registerReconciliationMetrics(
  registry: Registry,
  dataDir: () => string = () => loadDataDir(),
  today: () => string = () => moscowDay(Date.now()),
): void {
  // An account this process cannot read (another key, a damaged file) loses its own figures; a store
  // that cannot be read at all (PostgreSQL down) loses these gauges (payrun_metric_source_up says 0).
  // Never the scrape: every other metric of the worker stays up.
  const read = metricSource(registry, 'reconciliation_store', async () => {
    const store = reconcileStoreFor(dataDir());
    const all: AccountRead[] = [];
    for (const account of await store.accounts())
      try {
        all.push({
          account,
          open: Object.values(await store.readDifferences(account)).filter((d) => d.state === 'open'),
          unreconciled: (await unreconciledDays(store, account, today())).length,
        });
      } catch (err) {
        log.warn({ account, err: (err as Error).message }, 'reconciliation store unreadable: not counted');
      }
    return all;
  });
  new Gauge({
    name: 'payrun_reconciliation_open_differences',
    help: "Differences between payrun and the bank's statements still open, by account and kind.",
    labelNames: ['account', 'kind'] as const,
    registers: [registry],
    async collect() {
      const answer = await read();
      this.reset();
      if (!answer.up) return;
      for (const { account, open } of answer.value)
        for (const kind of DIFFERENCE_KIND_NAMES)
          this.set({ account, kind }, open.filter((d) => d.kind === kind).length);
    },
  });
  /** One figure per account the store could read; none while it cannot be read (source_up says 0). */
  const perAccount = (name: string, help: string, valueOf: (read: AccountRead) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['account'] as const,
      registers: [registry],
      async collect() {
        const answer = await read();
        this.reset();
        if (!answer.up) return;
        for (const one of answer.value) this.set({ account: one.account }, valueOf(one));
      },
    });
  perAccount(
    'payrun_reconciliation_oldest_open_difference_business_days',
    'Age in Moscow business days of the oldest open reconciliation difference, by account (0 when none is open).',
    ({ open }) => Math.max(0, ...open.map((d) => businessDaysBetween(d.day, today()))),
  );
  perAccount(
    'payrun_reconciliation_days_unreconciled',
    'Days of an account not reconciled: no statement came, or reconciliation never ran them (yesterday excluded: the morning run does it).',
    ({ unreconciled }) => unreconciled,
  );
}
