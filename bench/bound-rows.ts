/**
 * What proving a batch's rows from its approved file costs (src/batch/services/bound-rows.ts): once per worker
 * and batch, for a batch of N rows (default 10 000) in the folder store. Prints the CPU milliseconds of
 * the proof (read the kept file, sha256, load it again, compare every stored row) against the CPU of
 * reading the chunks alone, which is what the worker did before.
 *   node -r ./test/harness/ts-register.js bench/bound-rows.ts [rows]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundRows } from '../src/batch/services/bound-rows';
import { writeBatch } from '../src/batch/store/files';
import { batchStoreFor } from '../src/batch/store/open';
import { contentHash, loadBatch } from '../src/csv';
import { batchWorkflowId } from '../workflows/batch/contract';
import { batchCsv } from '../test/harness/batches';
import { freshInn } from '../test/harness/batches';
import { writePrivateFile } from '../src/private-fs';

const rows = Number(process.argv[2] ?? 10_000);
const root = mkdtempSync(join(tmpdir(), 'payrun-bound-bench-'));
const dataDir = join(root, 'data');
process.env.PAYRUN_DATA_DIR = dataDir;

const cpuMs = async (work: () => Promise<unknown>) => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

void (async () => {
  const bytes = batchCsv(
    Array.from({ length: rows }, (_, i) => ({
      reference: `bench-${i}`,
      inn: freshInn(i),
      amount: '1500.00',
    })),
  );
  const file = join(root, 'bench.csv');
  writePrivateFile(file, bytes);
  const hash = contentHash(bytes);
  const batchId = batchWorkflowId(hash);
  const load = { policy: 'whole-file' as const };
  const loaded = loadBatch(bytes, load);
  const accepted = new Set(loaded.accepted);
  const stored = loaded.rows.filter((r) => r.request && accepted.has(r.request));
  writeBatch(
    dataDir,
    {
      batchId,
      rootBatchId: batchId,
      contentHash: hash,
      fileName: 'bench.csv',
      sourcePath: file,
      doneDir: root,
      reportName: 'bench',
      load,
      rowCount: stored.length,
      invalidRows: 0,
      totalKopecks: loaded.totals.acceptedKopecks,
      submittedAt: new Date().toISOString(),
    },
    stored.map((r) => ({ row: r.row, request: r.request! })),
  );
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  const chunksOnly = await cpuMs(async () => {
    for (let i = 0; i < meta.chunkCount; i++) await store.readChunk(batchId, i);
  });
  let ok = false;
  const proof = await cpuMs(async () => {
    ok = (await boundRows(dataDir, batchId)).ok;
  });
  const cached = await cpuMs(() => boundRows(dataDir, batchId));
  console.log(
    JSON.stringify({
      rows: stored.length,
      proven: ok,
      chunksOnlyCpuMs: chunksOnly,
      proofCpuMs: proof,
      cachedCpuMs: cached,
    }),
  );
  rmSync(root, { recursive: true, force: true });
})();
