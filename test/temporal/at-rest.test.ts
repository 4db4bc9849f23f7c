import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { batchFolders } from '../../src/batch/folders';
import { submitBatch } from '../../src/batch/submit';
import { PROJECT_ROOT } from '../../src/paths';
import { batchHandle, FAST_PAYOUTS } from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';

/**
 * Nothing payrun writes is readable by other users: a demo-sized batch (the demo's 30-row example)
 * through the real stack, then every file and folder under the data dir, the batches dir and the
 * sandbox's data dir must be owner-only (0600 / 0700), with the usual umask 022 in force, and the
 * batch store must hold no card number in the clear.
 */
const EXAMPLE = join(PROJECT_ROOT, 'batches', 'examples', 'demo-payouts.csv');

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

it('leaves every file and folder of a demo-sized batch owner-only, and no card number readable in the store', async () => {
  const root = mkdtempSync(join(tmpdir(), 'payrun-at-rest-'));
  const dataDir = join(root, 'data');
  const batchesDir = join(root, 'batches');
  const sandboxDir = join(root, 'sandbox');
  process.env.PAYRUN_DATA_DIR = dataDir; // the worker's batch activities read the store from here
  stack = await startStack({ sandbox: { dataDir: sandboxDir } });

  const run = randomUUID().slice(0, 8);
  const csv = readFileSync(EXAMPLE, 'utf8').replace(/^demo-/gm, `rest-${run}-`);
  const cards = [...new Set(csv.match(/\b\d{16}\b/g) ?? [])];
  expect(cards.length).toBeGreaterThan(0);
  const inbox = batchFolders(batchesDir).inbox;
  // Accounting's file, dropped with the umask's 0644: payrun tightens it when it takes it over.
  const file = join(inbox, `rest-${run}.csv`);
  writeFileSync(file, csv);
  const submitted = await submitBatch(stack.client, file, {
    submitter: stack.signer('preparer'),
    paths: { dataDir, batchesDir },
    taskQueue: stack.taskQueue,
    policy: 'partial',
    batchOptions: { payout: FAST_PAYOUTS },
  });
  expect(submitted.status).toBe('started');
  if (submitted.status !== 'started') return;
  const final = await batchHandle(stack, submitted.batchId).result();
  await stack.stop();
  stack = undefined;

  const written = [...walk(dataDir), ...walk(batchesDir), ...walk(sandboxDir)];
  const names = written.map((p) => relative(root, p));
  // The test sees what it claims to: the store, the report, the done copy, the sandbox state.
  expect(names).toEqual(
    expect.arrayContaining([
      `data/store/${submitted.batchId}/meta.json`,
      `data/store/${submitted.batchId}/chunk-00000.json`,
      `data/store/${submitted.batchId}/outcomes.jsonl`,
      `data/store/${submitted.batchId}/final.json`,
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

  for (const p of walk(join(dataDir, 'store'))) {
    if (statSync(p).isDirectory()) continue;
    const text = readFileSync(p, 'utf8');
    for (const card of cards) expect(text.includes(card)).toBe(false);
    expect(text.startsWith('payrun-enc:v1:')).toBe(true);
  }
});
