import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchStore } from '../../src/batch/store/contract';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { PostgresBatchStore } from '../../src/batch/store/postgres';
import type { StoredBatchMeta, StoredRow } from '../../src/batch/store/files';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import type { SignedStatement } from '../../workflows/shared/approval-contract';
import { Client } from 'pg';
import { sealJson } from '../../src/batch/store/files';
import { resealStore } from '../../src/batch/store/reseal';
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
/** A batch's sealed meta (chunk undefined) or chunk exactly as stored: what a store writer can copy. */
interface RawAccess {
  readRaw(batchId: string, chunk?: number): Promise<string>;
  writeRaw(batchId: string, chunk: number | undefined, text: string): Promise<void>;
}
type Subject = StoreSubject<BatchStore> & RawAccess & { dataDir: string };

const chunkPath = (dataDir: string, batchId: string, chunk?: number) =>
  join(
    dataDir,
    'store',
    batchId,
    chunk === undefined ? 'meta.json' : `chunk-${String(chunk).padStart(5, '0')}.json`,
  );

async function onTable<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}
const rawSql = (chunk?: number) =>
  chunk === undefined
    ? { table: 'batch_meta', where: 'batch_id = $1', keys: [] as number[] }
    : { table: 'batch_chunks', where: 'batch_id = $1 AND chunk = $2', keys: [chunk] };

const subjects: Array<[string, () => Promise<Subject>]> = [
  [
    'folder',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-store-'));
      const dataDir = join(dir, 'data');
      return {
        store: new FolderBatchStore(dataDir),
        dir,
        dataDir,
        rawContents: async () => folderContents(join(dataDir, 'store')),
        readRaw: async (batchId, chunk) => readFileSync(chunkPath(dataDir, batchId, chunk), 'utf8'),
        writeRaw: async (batchId, chunk, text) => writeFileSync(chunkPath(dataDir, batchId, chunk), text),
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
        dataDir: join(dir, 'data'),
        readRaw: (batchId, chunk) => {
          const { table, where, keys } = rawSql(chunk);
          return onTable(db.url, async (c) => {
            const r = await c.query<{ sealed: string }>(`SELECT sealed FROM ${table} WHERE ${where}`, [
              batchId,
              ...keys,
            ]);
            return r.rows[0]!.sealed;
          });
        },
        writeRaw: (batchId, chunk, text) => {
          const { table, where, keys } = rawSql(chunk);
          const at = where.replace('$2', '$3').replace('$1', '$2');
          return onTable(db.url, async (c) => {
            await c.query(`UPDATE ${table} SET sealed = $1 WHERE ${at}`, [text, batchId, ...keys]);
          });
        },
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

  test('a batch written a row at a time is sealed chunk by chunk, the same as writeBatch', async () => {
    const rows = Array.from({ length: 1201 }, (_, i) => row(i + 2));
    const writer = await s.store.beginBatch(ROOT, meta(ROOT, s.dir).contentHash);
    for (const r of rows) await writer.add(r);
    expect(await s.store.exists(ROOT)).toBe(false); // no meta yet: nobody reads the chunks
    const written = await writer.finish(meta(ROOT, s.dir));
    expect(written.chunkCount).toBe(3);
    expect(await s.store.readMeta(ROOT)).toEqual(written);
    const back = [];
    for (let i = 0; i < written.chunkCount; i++) back.push(...(await s.store.readChunk(ROOT, i)));
    expect(back).toEqual(rows);
  });

  test('a batch abandoned while written (its file refused) leaves nothing behind', async () => {
    await s.store.writeBatch(meta(RETRY, s.dir), [row(2)]); // another batch, untouched
    const before = await s.rawContents();
    const writer = await s.store.beginBatch(ROOT, meta(ROOT, s.dir).contentHash);
    for (let i = 0; i < 1201; i++) await writer.add(row(i + 2));
    await writer.abandon();
    expect(await s.store.exists(ROOT)).toBe(false);
    expect(await s.rawContents()).toEqual(before);
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

  test("a report is published whole: two attempts at once leave one attempt's report, summary and final", async () => {
    await s.store.writeBatch(meta(ROOT, s.dir), [row(2)]);
    const done = join(s.dir, 'done');
    mkdirSync(done, { recursive: true });
    const attempts = [1, 2].map((n) => {
      const report = Buffer.concat([Buffer.from(`report ${n}\n`), randomBytes(1.5 * 1024 * 1024)]);
      const from = { report: join(s.dir, `report-${n}`), summary: join(s.dir, `summary-${n}`) };
      writeFileSync(from.report, report);
      writeFileSync(from.summary, `summary ${n}\n`);
      const final = {
        reportPath: join(done, 'march.report.csv'),
        summaryPath: join(done, 'march.summary.txt'),
        summary: `${n}`,
      };
      return { report, from, final };
    });
    await Promise.all(attempts.map((a) => s.store.publishReport(ROOT, a.from, a.final)));
    const won = attempts[Number((await s.store.readFinal(ROOT))!.summary) - 1]!;
    expect(await s.store.readFinal(ROOT)).toEqual(won.final);
    const [report, summary] = [join(s.dir, 'got-report'), join(s.dir, 'got-summary')];
    expect(await s.store.fetchFile(ROOT, 'report', report)).toBe(true);
    expect(await s.store.fetchFile(ROOT, 'summary', summary)).toBe(true);
    expect(readFileSync(report).equals(won.report)).toBe(true);
    expect(readFileSync(summary, 'utf8')).toBe(`summary ${won.final.summary}\n`);
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
    expect(raw.split('payrun-enc:v2:').length - 1).toBeGreaterThanOrEqual(5); // sealed in place, not missing
    for (const secret of [CARD, INN, LAST_NAME, 'ref-2']) expect(raw).not.toContain(secret);
  });

  test('an entry copied from another batch or another position does not open, and says which entry', async () => {
    const other = 'batch-00000000000000bb';
    await s.store.writeBatch(
      meta(ROOT, s.dir),
      Array.from({ length: 1001 }, (_, i) => row(i + 2)),
    );
    await s.store.writeBatch(meta(other, s.dir, { rootBatchId: other }), [row(2)]);
    const own = await s.readRaw(ROOT, 0);
    await s.writeRaw(ROOT, 0, await s.readRaw(other, 0)); // another batch's chunk 0, same file hash
    await expect(s.store.readChunk(ROOT, 0)).rejects.toThrow(
      `the batch store's entry "chunk/0" of batch ${ROOT} does not open as itself`,
    );
    await s.writeRaw(ROOT, 0, await s.readRaw(ROOT, 1)); // its own chunk 1, moved to 0
    await expect(s.store.readChunk(ROOT, 0)).rejects.toThrow(/entry "chunk\/0" of batch .* does not open/);
    await s.writeRaw(ROOT, 0, await s.readRaw(other, undefined)); // a meta where a chunk belongs
    await expect(s.store.readChunk(ROOT, 0)).rejects.toThrow(/does not open as itself/);
    await s.writeRaw(ROOT, 0, own);
    expect((await s.store.readChunk(ROOT, 0))[0]).toEqual(row(2));
  });

  test('plain and v1 entries read outside production, are refused in it, and `store seal` seals them in place', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => row(i + 2));
    const written = await s.store.writeBatch(meta(ROOT, s.dir), rows);
    await s.store.appendStatement(SHA, statement('anna'));
    // As a store written before this change holds them: the meta and chunk 1 payrun-enc:v1, chunk 0 in clear.
    await s.writeRaw(ROOT, undefined, sealJson(s.dataDir, written));
    await s.writeRaw(ROOT, 0, JSON.stringify(rows.slice(0, 500)));
    await s.writeRaw(ROOT, 1, sealJson(s.dataDir, rows.slice(500, 1000)));
    expect((await s.store.readChunk(ROOT, 0)).length).toBe(500);
    const production = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'production';
      await expect(s.store.readChunk(ROOT, 0)).rejects.toThrow(
        `the batch store's entry "chunk/0" of batch ${ROOT} is written in clear (plain JSON), not sealed: refused in production; run \`payrun store seal\``,
      );
      await expect(s.store.readChunk(ROOT, 1)).rejects.toThrow(
        /entry "chunk\/1" of batch .* is sealed without its batch and file \(payrun-enc:v1\): refused in production/,
      );
      await expect(s.store.readMeta(ROOT)).rejects.toThrow(/entry "meta" of batch .*: refused in production/);

      const first = await resealStore(s.store, s.dataDir);
      expect(first).toEqual({ resealed: 3, current: 2, failed: [] }); // meta, chunks 0 and 1; chunk 2 and the statement in place
      expect(await s.store.readMeta(ROOT)).toEqual(written);
      for (let i = 0; i < 3; i++)
        expect(await s.store.readChunk(ROOT, i)).toEqual(rows.slice(i * 500, i * 500 + 500));
      expect(await resealStore(s.store, s.dataDir)).toEqual({ resealed: 0, current: 5, failed: [] });
    } finally {
      process.env.NODE_ENV = production;
    }
    // A sealed entry out of its place is not the migration's to fix: it is named and left.
    await s.writeRaw(ROOT, 0, await s.readRaw(ROOT, 1));
    const after = await resealStore(s.store, s.dataDir);
    expect(after.failed).toEqual([
      expect.stringMatching(/^entry "chunk\/0" of batch batch-0+aa: .*does not open as itself/),
    ]);
  });
});
