import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { farAboveTypical, largestRows, largestStoredRows } from '../../src/batch/commands/amounts';
import { formatDryRun, type DryRunReport } from '../../src/batch/commands/dry-run';
import { describeProgress } from '../../src/cli/follow';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { readAllRows } from '../../src/batch/store/reads';
import { makeReportFixture } from '../../bench/report-fixture';

/** A mistyped amount is named before it holds up a batch: in the dry run, and while a batch waits for funds. */

let before: string | undefined;
beforeAll(() => {
  before = process.env.PAYRUN_LANG;
  delete process.env.PAYRUN_LANG;
});
afterAll(() => {
  if (before !== undefined) process.env.PAYRUN_LANG = before;
});

const row = (r: number, amount: number) => ({ row: r, reference: `p-${r}`, amount });

describe('amounts worth a second look', () => {
  it('rows at ten times the median or more, largest first; none in a file too small to have a typical amount', () => {
    const rows = [
      row(2, 15_000_00),
      row(3, 12_000_00),
      row(4, 150_000_000_00),
      row(5, 14_000_00),
      row(6, 160_000_00),
      row(7, 13_000_00),
    ];
    expect(farAboveTypical(rows)).toEqual({
      medianKopecks: 14_000_00,
      rows: [row(4, 150_000_000_00), row(6, 160_000_00)],
    });
    expect(farAboveTypical(rows.slice(0, 4)).rows).toEqual([]);
  });

  it('the n largest rows, keeping only n at a time', () => {
    expect(largestRows([row(2, 5), row(3, 9), row(4, 7), row(5, 9), row(6, 1)], 3)).toEqual([
      row(3, 9),
      row(5, 9),
      row(4, 7),
    ]);
  });

  it('the dry run names the rows far above the typical amount, the shortfall and the largest rows, in Russian', () => {
    const report: DryRunReport = {
      file: 'march.csv',
      rejected: false,
      fileErrors: [],
      invalid: [],
      rows: [row(2, 15_000_00), row(3, 150_000_000_00)].map((r) => ({ ...r, pay: true })),
      payKopecks: 150_015_000_00,
      balanceKopecks: 1_000_000_00,
      shortKopecks: 149_015_000_00,
      largest: [row(3, 150_000_000_00), row(2, 15_000_00)],
      farAboveTypical: { medianKopecks: 15_000_00, rows: [row(3, 150_000_000_00)] },
      taxNumbersChecked: 2,
    };
    expect(formatDryRun(report)).toEqual([
      'строка 2 p-2 15 000,00 ₽: будет выплачено',
      'строка 3 p-3 150 000 000,00 ₽: будет выплачено',
      'проверьте суммы: в 10 и более раз выше обычной для этого файла (медиана 15 000,00 ₽) — строка 3 p-3 150 000 000,00 ₽',
      'будет выплачено 2 из 2 строк, 150 015 000,00 ₽; депозит 1 000 000,00 ₽ — не хватает 149 015 000,00 ₽: пакет будет ждать пополнения',
      '  самые крупные строки: строка 3 p-3 150 000 000,00 ₽; строка 2 p-2 15 000,00 ₽',
      'проверено ИНН в банке: 2; платёжная сессия не создавалась',
    ]);
  });
});

describe('batch status of a batch waiting for funds, from the batch store on this machine', () => {
  let root: string;
  let dataDir: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'payrun-amounts-'));
    dataDir = process.env.PAYRUN_DATA_DIR;
  });
  afterAll(() => {
    if (dataDir === undefined) delete process.env.PAYRUN_DATA_DIR;
    else process.env.PAYRUN_DATA_DIR = dataDir;
    rmSync(root, { recursive: true, force: true });
  });

  it('names the largest rows the store holds; none when the store is elsewhere', async () => {
    const fixture = makeReportFixture(root, 3_000);
    const store = new FolderBatchStore(fixture.dataDir);
    const largest = (await largestStoredRows(store, fixture.batchId, 3))!;
    const largestRows = (await largestStoredRows(store, fixture.batchId, 5))!;
    process.env.PAYRUN_DATA_DIR = fixture.dataDir;
    const lines = describeProgress(
      {
        batchId: fixture.batchId,
        phase: 'awaiting_funds',
        rows: 2_994,
        invalidRows: 6,
        totalKopecks: 9_000_000_00,
        dispatched: 0,
        inFlight: 0,
        finished: 0,
        counts: {},
        amounts: {},
        failures: [],
        failureCount: 0,
        runs: 1,
        funds: { neededKopecks: 9_000_000_00, balanceKopecks: 1_000_00 },
      },
      { largestRows },
    );
    expect(lines).toContain('  не хватает 8 999 000,00 ₽: пакет ждёт пополнения депозита');
    expect(lines.at(-1)).toBe(
      '  самые крупные строки: строка 1895 r-1894 49 986,86 ₽; строка 632 r-631 49 969,89 ₽; строка 2526 r-2525 49 955,75 ₽; строка 1263 r-1262 49 938,78 ₽; строка 1894 r-1893 49 907,67 ₽',
    );
    // The same five as sorting every stored row.
    const all = (await readAllRows(store, fixture.batchId)).map((r) => r.request.amount);
    expect(largest.map((r) => r.amount)).toEqual(all.sort((a, b) => b - a).slice(0, 3));
    expect(
      await largestStoredRows(new FolderBatchStore(join(root, 'elsewhere')), fixture.batchId, 5),
    ).toBeUndefined();
  });
});
