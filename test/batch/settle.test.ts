import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentHash } from '../../src/csv';
import { reportHere, settleFinished } from '../../src/batch/commands/settle';
import type { StoredBatchMeta } from '../../src/batch/store/files';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { PostgresBatchStore } from '../../src/batch/store/postgres';
import { batchWorkflowId } from '../../workflows/batch/contract';
import { startScratchPostgres, type ScratchPostgres } from '../harness/postgres';

/**
 * The folder side of a shared store: the watcher's host gets each finished batch's file and report in
 * done/, another host's command line fetches the report into its own done/; nothing moves before a
 * batch has finished, and the folder store (whose worker did it all) is left alone.
 */
let pg: ScratchPostgres;
let root: string;
let store: PostgresBatchStore;
beforeAll(async () => {
  pg = await startScratchPostgres();
});
afterAll(async () => {
  await store?.close();
  await pg?.stop();
});
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payrun-settle-'));
  store = new PostgresBatchStore(pg.url, join(root, 'data'), 'test database');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A submitted file in the watcher's processing/, stored as submit stores it. */
async function submitted(name: string, text: string) {
  const batches = join(root, 'watcher');
  for (const f of ['processing', 'done']) mkdirSync(join(batches, f), { recursive: true });
  const file = join(batches, 'processing', name);
  writeFileSync(file, text);
  const hash = contentHash(Buffer.from(text));
  const batchId = batchWorkflowId(hash);
  await store.saveFile(batchId, 'source', file);
  await store.writeBatch(
    {
      batchId,
      rootBatchId: batchId,
      contentHash: hash,
      fileName: name,
      sourcePath: file,
      doneDir: join(batches, 'done'),
      doneName: name,
      reportName: name.replace(/\.csv$/, ''),
      load: { policy: 'whole-file' },
      rowCount: 1,
      invalidRows: 0,
      totalKopecks: 100,
      submittedAt: new Date().toISOString(),
    } as Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>,
    [],
  );
  return { batches, file, batchId };
}

/** What a worker on another host leaves in the store when the batch ends. */
async function finished(batchId: string, batches: string, reportName: string) {
  const scratch = join(root, 'worker-scratch');
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'report.csv'), 'reference,state\nr-1,succeeded\n');
  writeFileSync(join(scratch, 'summary.txt'), 'выплачено 1\n');
  await store.saveFile(batchId, 'report', join(scratch, 'report.csv'));
  await store.saveFile(batchId, 'summary', join(scratch, 'summary.txt'));
  const final = {
    reportPath: join(batches, 'done', `${reportName}.report.csv`),
    summaryPath: join(batches, 'done', `${reportName}.summary.txt`),
    summary: 'выплачено 1',
  };
  await store.writeFinal(batchId, final);
  return final;
}

test('a finished batch: its report and summary into done/, then the file; an unfinished one stays', async () => {
  const paid = await submitted('march.csv', 'reference\nr-1\n');
  const running = await submitted('april.csv', 'reference\nr-2\n');
  expect(await settleFinished(store, paid.batches)).toEqual([]);
  expect(existsSync(paid.file)).toBe(true);

  await finished(paid.batchId, paid.batches, 'march');
  expect(await settleFinished(store, paid.batches)).toEqual([{ file: paid.file, batchId: paid.batchId }]);
  const done = join(paid.batches, 'done');
  expect(readFileSync(join(done, 'march.csv'), 'utf8')).toBe('reference\nr-1\n');
  expect(readFileSync(join(done, 'march.report.csv'), 'utf8')).toBe('reference,state\nr-1,succeeded\n');
  expect(readFileSync(join(done, 'march.summary.txt'), 'utf8')).toBe('выплачено 1\n');
  expect(existsSync(paid.file)).toBe(false);
  expect(existsSync(running.file)).toBe(true);
  expect(await settleFinished(store, paid.batches)).toEqual([]);
});

test("another host's command line fetches the report into its own done/, not the watcher's paths", async () => {
  const paid = await submitted('march.csv', 'reference\nr-1\n');
  const final = await finished(paid.batchId, paid.batches, 'march');
  await settleFinished(store, paid.batches);
  const elsewhere = join(root, 'cli');
  const here = await reportHere(store, elsewhere, paid.batchId, final);
  expect(here).toEqual({
    reportPath: join(elsewhere, 'done', 'march.report.csv'),
    summaryPath: join(elsewhere, 'done', 'march.summary.txt'),
  });
  expect(readFileSync(here.reportPath, 'utf8')).toBe('reference,state\nr-1,succeeded\n');
});

test('the folder store is left alone: its worker already moved the file and wrote the report', async () => {
  const paid = await submitted('march.csv', 'reference\nr-1\n');
  const folder = new FolderBatchStore(join(root, 'data'));
  expect(await settleFinished(folder, paid.batches)).toEqual([]);
  expect(existsSync(paid.file)).toBe(true);
});
