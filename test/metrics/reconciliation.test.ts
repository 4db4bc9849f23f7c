import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { reconcileStatus } from '../../src/cli/reconcile';
import { registerReconciliationMetrics } from '../../src/metrics/reconciliation';
import type { DifferenceRecord } from '../../src/reconcile/store';
import { FolderReconcileStore } from '../../src/reconcile/store/folder';

const writeDifferences = (dir: string, account: string, all: Record<string, DifferenceRecord>) =>
  new FolderReconcileStore(dir).writeDifferences(account, all);
const accountDir = (dir: string, account: string) => join(dir, 'reconciliation', account);

const ACCOUNT = '40702810700000000002';
const record = (
  key: string,
  kind: DifferenceRecord['kind'],
  day: string,
  state: DifferenceRecord['state'],
) => ({
  key,
  kind,
  account: ACCOUNT,
  day,
  detail: '',
  state,
  foundAt: `${day}T06:00:00Z`,
});

describe('reconciliation metrics', () => {
  it('count open differences by kind and age the oldest in Moscow business days, read at every scrape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-metrics-'));
    const registry = new Registry();
    registerReconciliationMetrics(
      registry,
      () => dir,
      () => '2026-11-24',
    );
    await writeDifferences(dir, ACCOUNT, {
      a: record('a', 'missing_from_statement', '2026-11-13', 'open'), // Friday: 7 business days before Tuesday 24th
      b: record('b', 'missing_from_statement', '2026-11-20', 'open'),
      c: record('c', 'returned', '2026-11-02', 'resolved'),
      d: record('d', 'unknown_to_payrun', '2026-11-01', 'matched'),
    });
    const text = await registry.metrics();
    expect(text).toContain(
      `payrun_reconciliation_open_differences{account="${ACCOUNT}",kind="missing_from_statement"} 2`,
    );
    expect(text).toContain(`payrun_reconciliation_open_differences{account="${ACCOUNT}",kind="returned"} 0`);
    expect(text).toContain(
      `payrun_reconciliation_oldest_open_difference_business_days{account="${ACCOUNT}"} 7`,
    );
    // Resolved from the CLI: the next scrape sees it.
    await writeDifferences(dir, ACCOUNT, { b: record('b', 'missing_from_statement', '2026-11-20', 'open') });
    expect(await registry.metrics()).toContain(
      `payrun_reconciliation_oldest_open_difference_business_days{account="${ACCOUNT}"} 2`,
    );
  });
});

describe('days not reconciled', () => {
  it('count a day whose statement never came and a day never run, not yesterday, in the metric and status', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-metrics-'));
    const registry = new Registry();
    registerReconciliationMetrics(
      registry,
      () => dir,
      () => '2026-11-26',
    );
    const store = new FolderReconcileStore(dir);
    const outcome = (day: string, kind: 'reconciled' | 'statement_unavailable') =>
      store.writeDayOutcome({ account: ACCOUNT, day, outcome: kind, open: 0, found: 0, settled: 0, at: day });
    await outcome('2026-11-20', 'reconciled');
    await outcome('2026-11-21', 'statement_unavailable');
    // 22nd: never run; 23rd, 24th reconciled; 25th (yesterday): the morning run's to do.
    await outcome('2026-11-23', 'reconciled');
    await outcome('2026-11-24', 'reconciled');
    expect(await registry.metrics()).toContain(
      `payrun_reconciliation_days_unreconciled{account="${ACCOUNT}"} 2`,
    );
    const status = await reconcileStatus(dir, '2026-11-26', 'en');
    expect(status[0]).toBe(
      `${ACCOUNT}: reconciled up to 2026-11-24, 0 open difference(s), 2 day(s) not reconciled`,
    );
    expect(status.slice(1)).toEqual([
      `  2026-11-21 not reconciled: no statement (—); payrun reconcile day 2026-11-21 --account ${ACCOUNT}`,
      `  2026-11-22 not reconciled: never run; payrun reconcile day 2026-11-22 --account ${ACCOUNT}`,
    ]);
    // Run at last: the next scrape counts one fewer.
    await outcome('2026-11-22', 'reconciled');
    expect(await registry.metrics()).toContain(
      `payrun_reconciliation_days_unreconciled{account="${ACCOUNT}"} 1`,
    );
  });
});

describe('reconciliation metrics over a store this process cannot read', () => {
  it('leave that account out and keep the scrape, and every other metric, up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-metrics-'));
    const registry = new Registry();
    registerReconciliationMetrics(
      registry,
      () => dir,
      () => '2026-11-24',
    );
    await writeDifferences(dir, ACCOUNT, { a: record('a', 'missing_from_statement', '2026-11-13', 'open') });
    const other = '40702810700000000099';
    mkdirSync(accountDir(dir, other), { recursive: true });
    writeFileSync(join(accountDir(dir, other), 'differences.json'), 'payrun-enc:v1:another-key:AAAA');
    const text = await registry.metrics();
    expect(text).toContain(
      `payrun_reconciliation_open_differences{account="${ACCOUNT}",kind="missing_from_statement"} 1`,
    );
    expect(text).not.toContain(other);
  });
});
