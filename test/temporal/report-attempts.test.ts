import { underLoad } from '../harness/budget';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { makeReportFixture } from '../../bench/report-fixture';
import type { BankClient } from '../../src/bank';
import { finishBatch } from '../../src/batch/services/finish';
import type { StoredRow } from '../../src/batch/store/files';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { batchStoreFor, closeBatchStores } from '../../src/batch/store/open';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import { t } from '../../src/i18n';
import { BUNDLE_OPTIONS } from '../../src/temporal/worker-options';
import { createBatchActivities } from '../../activities/batch';
import { startScratchPostgres, type ScratchPostgres } from '../harness/postgres';
import { connectClient, quietLogger, startTestWorker, type TestWorker } from '../harness/temporal';
import { waitFor } from '../harness/wait';

/**
 * Issue 38 through a real worker and server: the report activity's first attempt is held (the store's
 * outcomes locked) past its heartbeat timeout, the server starts the next, and both then run in one
 * worker at once, on the PostgreSQL store. The report published must be right row by row.
 */
const ROWS = 20_000;

describe('the report activity retried while its first attempt still runs', () => {
  let root: string;
  let pg: ScratchPostgres;
  let worker: TestWorker;
  let temporal: Awaited<ReturnType<typeof connectClient>>;
  const saved = { ...process.env };
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'payrun-report-attempts-'));
    pg = await startScratchPostgres();
    temporal = await connectClient();
    worker = await startTestWorker({
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: require.resolve('../harness/report-attempts-workflow'),
        logger: quietLogger,
        ...BUNDLE_OPTIONS,
      }),
      // Only the report activity runs here: it calls no bank and, with no task queue, asks no ledger.
      activities: {
        finishBatch: createBatchActivities({
          client: temporal.client,
          bank: {} as BankClient,
          policy: { current: () => ({}) as never },
        }).finishBatch,
      },
    });
  }, underLoad(120_000));
  afterAll(async () => {
    await worker?.stop();
    await temporal?.close();
    await closeBatchStores();
    await pg?.stop();
    for (const name of ['PAYRUN_BATCH_STORE', 'PAYRUN_BATCH_STORE_URL', 'PAYRUN_DATA_DIR']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    rmSync(root, { recursive: true, force: true });
  });

  it(
    'publishes the whole right report: every row cancelled, paid or refused, none not processed',
    async () => {
      // The report one attempt alone writes, on the folder store: what the overlapping attempts must publish.
      const alone = makeReportFixture(join(root, 'alone'), ROWS);
      const expected = readFileSync(
        (await finishBatch(alone.dataDir, alone.batchId, { cancelled: true })).reportPath,
      );

      // The same batch in PostgreSQL, where the worker's activity finds it (PAYRUN_DATA_DIR: its keys).
      const f = makeReportFixture(join(root, 'pg'), ROWS);
      const folder = new FolderBatchStore(f.dataDir);
      const meta = await folder.readMeta(f.batchId);
      const rows: StoredRow[] = [];
      for (let i = 0; i < meta.chunkCount; i++) rows.push(...(await folder.readChunk(f.batchId, i)));
      const outcomes: BatchRowOutcome[] = [];
      for await (const { outcome } of folder.outcomes(f.batchId)) outcomes.push(outcome);
      process.env.PAYRUN_BATCH_STORE = 'postgres';
      process.env.PAYRUN_BATCH_STORE_URL = pg.url;
      process.env.PAYRUN_DATA_DIR = f.dataDir;
      const store = batchStoreFor(f.dataDir);
      const { chunkCount: _c, chunkSize: _s, ...written } = meta;
      await store.writeBatch(written, rows);
      await store.appendOutcomes(f.batchId, outcomes);
      await store.saveFile(f.batchId, 'source', f.filePath);

      // Hold the outcomes: the first attempt waits on them without a heartbeat until the server retries it.
      const lock = new PgClient({ connectionString: pg.url });
      await lock.connect();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE batch_outcomes IN ACCESS EXCLUSIVE MODE');
      const handle = await temporal.client.workflow.start('reportAttempts', {
        taskQueue: worker.taskQueue,
        workflowId: `report-attempts-${f.batchId}-${Date.now()}`,
        args: [f.batchId],
      });
      let attempt = 0;
      await waitFor(
        async () => {
          attempt = (await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? attempt;
          return attempt >= 2;
        },
        underLoad(120_000),
        'a second attempt of the report',
      );
      await lock.query('COMMIT');
      await lock.end();

      const final = await handle.result();
      const report = join(root, 'published.csv');
      expect(await store.fetchFile(f.batchId, 'report', report)).toBe(true);
      const published = readFileSync(report);
      expect(published.toString('utf8')).not.toContain(t('report.not_processed'));
      expect(published.toString('utf8').split('\n').filter(Boolean)).toHaveLength(ROWS + 1);
      expect(published.equals(expected)).toBe(true);
      expect(await store.readFinal(f.batchId)).toEqual(final);
      // The earlier attempt stopped (cancelled at its next pulse) and cleaned its own scratch folder.
      const work = join(f.dataDir, 'store', f.batchId, 'report-work');
      await waitFor(async () => readdirSync(work).length === 0, underLoad(60_000), 'every attempt ended');
    },
    underLoad(300_000),
  );
});
