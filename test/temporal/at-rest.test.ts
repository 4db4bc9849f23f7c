import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'csv-parse/sync';
import { batchFolders } from '../../src/batch/services/folders';
import { batchStoreFor } from '../../src/batch/store/open';
import { submitBatch } from '../../src/batch/commands/submit';
import { loadPolicy } from '../../src/policy/file';
import { PROJECT_ROOT } from '../../src/paths';
import { batchHandle, FAST_PAYOUTS } from '../harness/batches';
import { folderStore, reportPathOf } from '../harness/reports';
import { startStack, type Stack } from '../harness/stack';
import { storedTableRows } from '../harness/store-tables';

/**
 * Nothing payrun writes is readable by other users: a demo-sized batch (the demo's 30-row example)
 * through the real stack, then every file and folder under the data dir, the batches dir and the
 * sandbox's data dir must be owner-only (0600 / 0700), with the usual umask 022 in force, and the
 * batch store must hold no personal data (card numbers, INNs, names) in the clear: the folder store's
 * files, or, with the PostgreSQL store (PAYRUN_BATCH_STORE=postgres), every row its tables hold about
 * the batch and its file (rows, outcomes, final, the file, report and summary, the statements).
 */
const EXAMPLE = join(PROJECT_ROOT, 'batches', 'examples', 'demo-payouts.csv');
const SEALED = 'payrun-enc:v2:'; // sealed in its place (src/batch/store/sealing.ts)

let stack: Stack | undefined;
let previousUmask: number;
beforeAll(() => {
  previousUmask = process.umask(0o022);
});
afterAll(async () => {
  await stack?.stop();
  process.umask(previousUmask);
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? [p, ...walk(p)] : [p];
  });
}

/** The file's personal values: what must never be in a store in the clear. */
function personalValues(csv: string): string[] {
  const rows = parse(csv, { columns: true }) as Record<string, string>[];
  const values = rows.flatMap((r) => [r.card_number, r.inn, r.last_name, r.first_name]);
  return [...new Set(values.filter((v): v is string => !!v))];
}

it('leaves every file and folder of a demo-sized batch owner-only, and no personal data readable in the store', async () => {
  const root = mkdtempSync(join(tmpdir(), 'payrun-at-rest-'));
  const dataDir = join(root, 'data');
  const batchesDir = join(root, 'batches');
  const sandboxDir = join(root, 'sandbox');
  const paths = { dataDir, batchesDir };
  process.env.PAYRUN_DATA_DIR = dataDir; // the worker's batch activities read the store from here
  stack = await startStack({ sandbox: { dataDir: sandboxDir } });

  const run = randomUUID().slice(0, 8);
  const csv = readFileSync(EXAMPLE, 'utf8').replace(/^demo-/gm, `rest-${run}-`);
  const cards = [...new Set(csv.match(/\b\d{16}\b/g) ?? [])];
  expect(cards.length).toBeGreaterThan(0);
  const personal = personalValues(csv);
  expect(personal).toEqual(expect.arrayContaining([...cards, '770700000190', 'Петров', 'Сергей']));
  const inbox = batchFolders(batchesDir).inbox;
  // Accounting's file, dropped with the umask's 0644: payrun tightens it when it takes it over.
  const file = join(inbox, `rest-${run}.csv`);
  writeFileSync(file, csv);
  const submitted = await submitBatch(stack.client, file, {
    submitter: stack.signer('preparer'),
    whoMayPay: loadPolicy({ PAYRUN_POLICY_FILE: stack.people.file }),
    paths,
    taskQueue: stack.taskQueue,
    policy: 'partial',
    batchOptions: { payout: FAST_PAYOUTS },
  });
  expect(submitted.status).toBe('started');
  if (submitted.status !== 'started') return;
  const final = await batchHandle(stack, submitted.batchId).result();
  await stack.stop();
  stack = undefined;
  // With a shared store the watcher puts the file, report and summary into done/: they are checked too.
  await reportPathOf(paths, submitted.batchId, final);

  const folder = folderStore(paths);
  const written = [...walk(dataDir), ...walk(batchesDir), ...walk(sandboxDir)];
  const names = written.map((p) => relative(root, p));
  // The test sees what it claims to: the store (when it is files), the report, the done copy, the sandbox state.
  const storeFiles = ['meta.json', 'chunk-00000.json', 'outcomes.jsonl', 'final.json'];
  expect(names).toEqual(
    expect.arrayContaining([
      ...(folder ? storeFiles.map((f) => `data/store/${submitted.batchId}/${f}`) : []),
      `batches/done/rest-${run}.csv`,
      'sandbox/sandbox-state.json',
    ]),
  );
  expect(written).toEqual(expect.arrayContaining([final.reportPath, final.summaryPath]));
  const open = written
    .map((p) => ({ p: relative(root, p), mode: statSync(p).mode & 0o777 }))
    .filter(({ mode }) => (mode & 0o077) !== 0)
    .map(({ p, mode }) => `${p} ${mode.toString(8)}`);
  expect(open).toEqual([]);

  if (folder) {
    for (const p of walk(join(dataDir, 'store'))) {
      if (statSync(p).isDirectory()) continue;
      const text = readFileSync(p, 'utf8');
      for (const value of personal) expect(text.includes(value)).toBe(false);
      expect(text.startsWith(SEALED)).toBe(true);
    }
    return;
  }

  // PostgreSQL: what its tables hold, as anyone with the database or a backup of it would see it.
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(submitted.batchId);
  const stored = await storedTableRows(submitted.batchId, meta.contentHash);
  const count = (table: string) => stored.filter((r) => r.table === table).length;
  // Every kind of record is there: rows, an outcome per row, the final, the three files, the statement.
  expect({
    meta: count('batch_meta'),
    chunks: count('batch_chunks'),
    finals: count('batch_finals'),
  }).toEqual({ meta: 1, chunks: 1, finals: 1 });
  const outcomes = Object.values(final.counts).reduce((a, b) => a + b, 0);
  expect(count('batch_outcomes')).toBeGreaterThanOrEqual(outcomes);
  expect(count('batch_files')).toBeGreaterThanOrEqual(3);
  expect(count('file_statements')).toBeGreaterThanOrEqual(1);
  const leaks = stored.flatMap(({ table, row }) =>
    personal.filter((v) => row.includes(v)).map((v) => `${table}: ${v}`),
  );
  expect(leaks).toEqual([]);
  expect(stored.filter((r) => !r.sealed.startsWith(SEALED)).map((r) => r.table)).toEqual([]);
  // … and sealed, not absent: the kept file, opened with the payload keys, is the file with its cards.
  const kept = join(root, 'kept-source.csv');
  expect(await store.fetchFile(submitted.batchId, 'source', kept)).toBe(true);
  expect(readFileSync(kept, 'utf8')).toBe(csv);
});
