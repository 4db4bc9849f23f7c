import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresBatchStore } from '../../src/batch/store/postgres';
import type { DayOutcome, DifferenceRecord, ReconcileStore } from '../../src/reconcile/store';
import { FolderReconcileStore } from '../../src/reconcile/store/folder';
import { PostgresReconcileStore } from '../../src/reconcile/store/postgres';
import { withLocalReports } from '../../src/reconcile/store/open';
import { freshDatabase } from '../harness/postgres';
import {
  folderContents,
  type StoreSubject,
  tableContents,
  useCleanups,
  useScratchPostgres,
} from '../harness/store-contract';

/**
 * The reconciliation store's contract, held to both implementations: what one step of a day writes,
 * the next reads back the same (on PostgreSQL from any host), reports reach the reader's own folder
 * byte for byte, and nothing personal is stored in clear by either.
 */

const ACCOUNT = '40702810700000000002';
const OTHER = '40702810700000000099';
const DAY = '2026-11-23';
const COUNTERPARTY = 'Тестова Анна Петровна';
const THEIR_ACCOUNT = '40817810099910004312';
const INN = '500100732259';

const difference = (key: string, state: DifferenceRecord['state']): DifferenceRecord =>
  ({
    key,
    kind: 'missing_from_statement',
    day: DAY,
    reference: `ref-${key}`,
    payrunAmount: 123_456,
    state,
    foundAt: `${DAY}T06:00:00.000Z`,
    note: `${COUNTERPARTY} ${THEIR_ACCOUNT}`,
  }) as unknown as DifferenceRecord;

const statement = {
  transactions: [
    {
      bank_system_id: 'b1',
      amount: 123_456,
      counter_party: { name: COUNTERPARTY, account_number: THEIR_ACCOUNT, inn: INN },
    },
  ],
};

const outcome = (day: string, kind: DayOutcome['outcome'], files?: DayOutcome['files']): DayOutcome => ({
  account: ACCOUNT,
  day,
  outcome: kind,
  closing: 1_000_000,
  open: 1,
  found: 1,
  settled: 0,
  ...(files ? { files } : {}),
  at: `${day}T06:00:00.000Z`,
});

const scratchUrl = useScratchPostgres();
const cleanups = useCleanups();
type Subject = StoreSubject<ReconcileStore>;

const subjects: Array<[string, () => Promise<Subject>]> = [
  [
    'folder',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-store-'));
      return {
        store: new FolderReconcileStore(join(dir, 'data')),
        dir,
        // The reports are accounting's plain files by design; every other file is what is checked.
        rawContents: async () =>
          folderContents(join(dir, 'data', 'reconciliation'))
            .split('\n')
            .filter((l) => !l.includes('report-body'))
            .join('\n'),
      };
    },
  ],
  [
    'postgres',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-store-'));
      const db = await freshDatabase(scratchUrl(), 'payrun_reconcile_contract');
      const batches = new PostgresBatchStore(db.url, join(dir, 'data'), 'test database');
      cleanups.push(async () => {
        await batches.close();
        await db.stop();
      });
      return {
        store: new PostgresReconcileStore(batches, join(dir, 'data')),
        dir,
        rawContents: () =>
          tableContents(db.url, [
            'reconcile_account_state',
            'reconcile_day_inputs',
            'reconcile_day_outcomes',
            'reconcile_reports',
          ]),
      };
    },
  ],
];

describe.each(subjects)('the %s reconciliation store', (_kind, make) => {
  let s: Subject;
  beforeEach(async () => {
    s = await make();
    cleanups.push(async () => rmSync(s.dir, { recursive: true, force: true }));
  });

  test('differences and matched sessions read back as written, per account', async () => {
    expect(await s.store.readDifferences(ACCOUNT)).toEqual({});
    expect(await s.store.readMatchedSessions(ACCOUNT)).toEqual({});
    const all = { a: difference('a', 'open'), b: difference('b', 'resolved') };
    await s.store.writeDifferences(ACCOUNT, all);
    await s.store.writeDifferences(ACCOUNT, { ...all, c: difference('c', 'matched') });
    expect(await s.store.readDifferences(ACCOUNT)).toEqual({ ...all, c: difference('c', 'matched') });
    await s.store.writeMatchedSessions(ACCOUNT, { 's-1': DAY });
    expect(await s.store.readMatchedSessions(ACCOUNT)).toEqual({ 's-1': DAY });
    expect(await s.store.readDifferences(OTHER)).toEqual({});
    expect(await s.store.accounts()).toEqual([ACCOUNT]);
  });

  test("a day's inputs are handed from one step to the next; a missing one is undefined", async () => {
    expect(await s.store.readDayInput(ACCOUNT, DAY, 'statement')).toBeUndefined();
    await s.store.writeDayInput(ACCOUNT, DAY, 'statement', statement);
    await s.store.writeDayInput(ACCOUNT, DAY, 'payouts', [{ reference: 'r1' }]);
    expect(await s.store.readDayInput(ACCOUNT, DAY, 'statement')).toEqual(statement);
    expect(await s.store.readDayInput(ACCOUNT, DAY, 'payouts')).toEqual([{ reference: 'r1' }]);
    expect(await s.store.readDayInput(ACCOUNT, '2026-11-24', 'payouts')).toBeUndefined();
  });

  test("days' outcomes: replaced when written again; only reconciled days count as reconciled", async () => {
    expect(await s.store.readDayOutcome(ACCOUNT, DAY)).toBeUndefined();
    await s.store.writeDayOutcome(outcome('2026-11-21', 'reconciled'));
    await s.store.writeDayOutcome(outcome(DAY, 'statement_unavailable'));
    await s.store.writeDayOutcome(outcome('2026-11-20', 'reconciled'));
    expect(await s.store.reconciledDays(ACCOUNT)).toEqual(['2026-11-20', '2026-11-21']);
    // Every day with an outcome, whatever it is; a day with inputs only has none.
    await s.store.writeDayInput(ACCOUNT, '2026-11-19', 'statement', statement);
    expect(await s.store.outcomeDays(ACCOUNT)).toEqual(['2026-11-20', '2026-11-21', DAY]);
    await s.store.writeDayOutcome(outcome(DAY, 'reconciled'));
    expect(await s.store.readDayOutcome(ACCOUNT, DAY)).toEqual(outcome(DAY, 'reconciled'));
    expect(await s.store.reconciledDays(ACCOUNT)).toEqual(['2026-11-20', '2026-11-21', DAY]);
    expect(await s.store.accounts()).toEqual([ACCOUNT]);
  });

  test("a day's reports reach a reader's own folder byte for byte, owner-only", async () => {
    const csv = Buffer.from(`report-body;${COUNTERPARTY}\r\n`, 'latin1');
    const names = { csv: 'r.csv', json: 'r.json', oneC: '1c.txt' };
    const files = {
      csv: await s.store.saveReport(ACCOUNT, DAY, names.csv, csv),
      json: await s.store.saveReport(ACCOUNT, DAY, names.json, '{"report-body":1}\n'),
      oneC: await s.store.saveReport(ACCOUNT, DAY, names.oneC, Buffer.from('report-body 1C')),
    };
    const reader = join(s.dir, 'another-host');
    const local = await withLocalReports(s.store, reader, outcome(DAY, 'reconciled', files));
    expect(readFileSync(local.files!.csv).equals(csv)).toBe(true);
    expect(readFileSync(local.files!.json, 'utf8')).toBe('{"report-body":1}\n');
    expect(readFileSync(local.files!.oneC, 'utf8')).toBe('report-body 1C');
    expect(statSync(local.files!.csv).mode & 0o777).toBe(0o600);
    if (!s.store.sharesFolders) expect(local.files!.csv.startsWith(reader)).toBe(true);
    expect(await s.store.fetchReport(ACCOUNT, DAY, 'none.csv', join(s.dir, 'none.csv'))).toBe(false);
  });

  test('bad accounts, days and report names are refused, naming what is wrong', async () => {
    await expect(s.store.readDifferences('../etc')).rejects.toThrow(/account "..\/etc": must be 20 digits/);
    await expect(s.store.readDayInput(ACCOUNT, '23.11.2026', 'statement')).rejects.toThrow(
      /day "23.11.2026": must be YYYY-MM-DD/,
    );
    await expect(s.store.saveReport(ACCOUNT, DAY, '../x', 'y')).rejects.toThrow(/report name "..\/x"/);
  });

  test("nothing personal is stored in clear (the folder store's reports aside: accounting's files)", async () => {
    await s.store.writeDifferences(ACCOUNT, { a: difference('a', 'open') });
    await s.store.writeDayInput(ACCOUNT, DAY, 'statement', statement);
    await s.store.saveReport(ACCOUNT, DAY, 'r.csv', `report-body;${COUNTERPARTY};${THEIR_ACCOUNT}`);
    await s.store.writeDayOutcome(outcome(DAY, 'reconciled'));
    const raw = await s.rawContents();
    expect(raw.split('payrun-enc:v1:').length - 1).toBeGreaterThanOrEqual(2); // sealed, not missing
    for (const secret of [COUNTERPARTY, THEIR_ACCOUNT, INN, 'ref-a']) expect(raw).not.toContain(secret);
  });
});
