import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
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
