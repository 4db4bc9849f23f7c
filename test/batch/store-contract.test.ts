import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchStore } from '../../src/batch/store/contract';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { PostgresBatchStore } from '../../src/batch/store/postgres';
import type { StoredBatchMeta, StoredRow } from '../../src/batch/store';
import type { BatchRowOutcome } from '../../workflows/contracts/batch';
import type { SignedStatement } from '../../workflows/contracts/approval';
import { freshDatabase } from '../harness/postgres';
import {
  folderContents,
  type StoreSubject,
  tableContents,
  useCleanups,
  useScratchPostgres,
} from '../harness/store-contract';

/**
 * The batch store's contract, held to both implementations: whatever a worker, the watcher, the
 * console or the command line does through it must read back the same from either, and nothing
 * personal may be stored in clear by either.
 */

const CARD = '4111111111111111';
const INN = '500100732259';
const LAST_NAME = 'Тестова';

const ROOT = 'batch-00000000000000aa';
const RETRY = `${ROOT}-retry-1`;
const SHA = 'ab'.repeat(32);

function row(n: number): StoredRow {
  return {
    row: n,
    request: {
      reference: `ref-${n}`,
      recipient: { lastName: LAST_NAME, firstName: 'Анна', taxReference: INN },
      method: { type: 'card', cardNumber: CARD } as unknown as StoredRow['request']['method'],
      amount: 100 * n,
      currency: 'rub',
      serviceName: 'Услуги',
      selfEmployed: true,
    },
  };
}

function meta(batchId: string, dir: string, extra: Partial<StoredBatchMeta> = {}) {
  return {
    batchId,
    rootBatchId: ROOT,
    contentHash: SHA,
    fileName: 'march.csv',
    sourcePath: join(dir, 'processing', 'march.csv'),
    doneDir: join(dir, 'done'),
    doneName: 'march.csv',
    reportName: 'march',
    load: { policy: 'whole-file' as const, stopList: [INN] },
    rowCount: 3,
    invalidRows: 0,
    totalKopecks: 600,
    submittedAt: '2026-03-01T09:00:00.000Z',
    ...extra,
  } as Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>;
}

const outcome = (n: number, state: BatchRowOutcome['state']): BatchRowOutcome => ({
  row: n,
  reference: `ref-${n}`,
  amount: 100 * n,
  state,
  reason: `${LAST_NAME} ${CARD}`,
});

const statement = (by: string): SignedStatement =>
  ({
    statement: { kind: 'approve', by, fileSha256: SHA, note: INN },
    signature: 'c'.repeat(128),
  }) as unknown as SignedStatement;

const scratchUrl = useScratchPostgres();
const cleanups = useCleanups();
type Subject = StoreSubject<BatchStore>;

const subjects: Array<[string, () => Promise<Subject>]> = [
  [
    'folder',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-store-'));
      const dataDir = join(dir, 'data');
      return {
        store: new FolderBatchStore(dataDir),
        dir,
        rawContents: async () => folderContents(join(dataDir, 'store')),
      };
    },
  ],
  [
    'postgres',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-store-'));
      // A fresh database per test on the file's one server: each starts from an empty store.
      const db = await freshDatabase(scratchUrl(), 'payrun_contract');
      const store = new PostgresBatchStore(db.url, join(dir, 'data'), 'test database');
      cleanups.push(async () => {
        await store.close();
        await db.stop();
      });
      return {
        store,
        dir,
        rawContents: () =>
          tableContents(db.url, [
            'batch_meta',
            'batch_chunks',
            'batch_outcomes',
            'batch_finals',
            'batch_files',
            'file_statements',
          ]),
      };
    },
  ],
];

describe.each(subjects)('the %s batch store', (_kind, make) => {
  let s: Subject;
  beforeEach(async () => {
    s = await make();
    cleanups.push(async () => rmSync(s.dir, { recursive: true, force: true }));
  });

  test('a written batch reads back whole: its meta, its chunks, and only then it exists', async () => {
    expect(await s.store.exists(ROOT)).toBe(false);
    const rows = Array.from({ length: 1201 }, (_, i) => row(i + 2));
    const written = await s.store.writeBatch(meta(ROOT, s.dir), rows);
    expect(written.chunkCount).toBe(3);
    expect(await s.store.exists(ROOT)).toBe(true);
    expect(await s.store.readMeta(ROOT)).toEqual(written);
    const back = [];
    for (let i = 0; i < written.chunkCount; i++) back.push(...(await s.store.readChunk(ROOT, i)));
    expect(back).toEqual(rows);
    expect(await s.store.batchIds()).toEqual([ROOT]);
  });

  test('rows of 100 KiB (a CSV’s metadata has no limit) are cut into chunks by bytes and read back whole', async () => {
    // Each chunk is one activity result in the batch's history: src/batch/store/chunks.ts.
    const rows = Array.from({ length: 5 }, (_, i) => {
      const r = row(i + 2);
      return { ...r, request: { ...r.request, metadata: 'm'.repeat(100 * 1024) } };
    });
    const written = await s.store.writeBatch(meta(ROOT, s.dir), rows);
    expect(written.chunkCount).toBe(3);
    const back = [];
    for (let i = 0; i < written.chunkCount; i++) back.push(...(await s.store.readChunk(ROOT, i)));
    expect(back).toEqual(rows);
  });

  test('a batch written again is replaced, not doubled', async () => {
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2), row(3)]);
    const again = await s.store.writeBatch(meta(ROOT, s.dir, { fileName: 'april.csv' }), [row(2)]);
    expect(again.chunkCount).toBe(1);
    expect((await s.store.readMeta(ROOT)).fileName).toBe('april.csv');
    expect(await s.store.readChunk(ROOT, 0)).toEqual([row(2)]);
  });

  test('a batch that is not there is named in the error, with where the store is', async () => {
    await expect(s.store.readMeta('batch-0000000000000bad')).rejects.toThrow(
      /batch batch-0000000000000bad is not in the batch store/,
    );
    await expect(s.store.readMeta('../etc')).rejects.toThrow(/"..\/etc" is not a batch id/);
    await expect(s.store.readStatements('nope')).rejects.toThrow(/"nope" is not a file's sha256/);
  });

  test('outcomes stream back in the order they were appended, past any page size, retried ones twice', async () => {
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2)]);
    const first = Array.from({ length: 2500 }, (_, i) => outcome(i + 2, 'succeeded'));
    await s.store.appendOutcomes(ROOT, first);
    await s.store.appendOutcomes(ROOT, []);
    await s.store.appendOutcomes(ROOT, [outcome(2, 'failed')]);
    const seen: BatchRowOutcome[] = [];
    for await (const { outcome: o, sealed } of s.store.outcomes(ROOT)) {
      expect(sealed).not.toContain(CARD);
      seen.push(o);
    }
    expect(seen).toEqual([...first, outcome(2, 'failed')]);
    const none: unknown[] = [];
    for await (const o of s.store.outcomes(RETRY)) none.push(o);
    expect(none).toEqual([]);
  });

  test("a batch's final, its retries and its file's statements", async () => {
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2)]);
    expect(await s.store.readFinal(ROOT)).toBeUndefined();
    const final = {
      reportPath: '/x/march.report.csv',
      summaryPath: '/x/march.summary.txt',
      summary: 'итого',
    };
    await s.store.writeFinal(ROOT, final);
    expect(await s.store.readFinal(ROOT)).toEqual(final);

    expect(await s.store.retryCount(ROOT)).toBe(0);
    await s.store.writeBatch(meta(RETRY, s.dir, { previousBatchId: ROOT }), [row(2)]);
    expect(await s.store.retryCount(ROOT)).toBe(1);
    expect(await s.store.batchIds()).toEqual([ROOT, RETRY]);

    expect(await s.store.statementsVersion(SHA)).toBe(0);
    expect(await s.store.readStatements(SHA)).toEqual([]);
    await s.store.appendStatement(SHA, statement('anna'));
    const v1 = await s.store.statementsVersion(SHA);
    expect(v1).toBeGreaterThan(0);
    await s.store.appendStatement(SHA, statement('boris'));
    expect(await s.store.statementsVersion(SHA)).toBeGreaterThan(v1);
    expect(await s.store.readStatements(SHA)).toEqual([statement('anna'), statement('boris')]);
  });

  test("a batch's file is kept and fetched byte for byte (larger than one sealed piece)", async () => {
    const processing = join(s.dir, 'processing');
    mkdirSync(processing, { recursive: true });
    const bytes = Buffer.concat([Buffer.from(`${CARD};${LAST_NAME}\n`), randomBytes(2.5 * 1024 * 1024)]);
    writeFileSync(join(processing, 'march.csv'), bytes);
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2)]);
    await s.store.saveFile(ROOT, 'source', join(processing, 'march.csv'));
    const to = join(s.dir, 'fetched.csv');
    expect(await s.store.fetchFile(ROOT, 'source', to)).toBe(true);
    expect(readFileSync(to).equals(bytes)).toBe(true);
    expect(statSync(to).mode & 0o777).toBe(0o600);
    expect(await s.store.fetchFile(ROOT, 'report', join(s.dir, 'no-report.csv'))).toBe(false);
  });

  test('a passkey counter moves only forward, and the same counter sent at once is accepted once', async () => {
    const id = 'cred-AAAAAAAAAAAAAAAA';
    expect(await s.store.passkeyCounters([id, 'other'])).toEqual({});
    expect(await s.store.advancePasskeyCounter(id, 5)).toBe(true);
    expect(await s.store.advancePasskeyCounter(id, 5)).toBe(false);
    expect(await s.store.advancePasskeyCounter(id, 3)).toBe(false);
    const together = await Promise.all([6, 6, 6].map((n) => s.store.advancePasskeyCounter(id, n)));
    expect(together.filter(Boolean)).toHaveLength(1);
    expect(await s.store.passkeyCounters([id, 'other'])).toEqual({ [id]: 6 });
  });

  test('nothing personal is stored in clear', async () => {
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2), row(3)]);
    await s.store.appendOutcomes(ROOT, [outcome(2, 'succeeded')]);
    await s.store.appendStatement(SHA, statement('anna'));
    await s.store.writeFinal(ROOT, { reportPath: 'r', summaryPath: 's', summary: `${LAST_NAME} ${INN}` });
    const raw = await s.rawContents();
    expect(raw.split('payrun-enc:v1:').length - 1).toBeGreaterThanOrEqual(5); // sealed, not missing
    for (const secret of [CARD, INN, LAST_NAME, 'ref-2']) expect(raw).not.toContain(secret);
  });
});
