/**
 * Issue 38: submitting reads the file as a stream. A refused file names every planted error and
 * every duplicate row in its errors file, in row order, leaves nothing in the batch store and never
 * reaches Temporal (the client here throws if it is touched).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { SHOWN_ERRORS, submitBatch } from '../../src/batch/commands/submit';
import type { Policy as WhoMayPay } from '../../src/policy/file';
import type { Signer } from '../../src/policy/keys';
import { writeSubmitFile } from '../../bench/submit-file';
import { useLanguage } from '../harness/lang';

useLanguage('en');

const untouchable = new Proxy({} as Client, {
  get: (_t, key) => {
    throw new Error(`a refused file reached Temporal (client.${String(key)})`);
  },
});
const nobody = {} as Signer;
const noPolicy = {} as WhoMayPay;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'submit-stream-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('a refused file of 3 000 rows names each planted error and duplicate, and stores nothing', async () => {
  const file = join(root, 'march.csv');
  const made = writeSubmitFile(file, 3000, 100);
  expect(made.planted).toHaveLength(30);
  const paths = { dataDir: join(root, 'data'), batchesDir: join(root, 'batches') };
  const r = await submitBatch(untouchable, file, {
    paths,
    taskQueue: 'unused',
    submitter: nobody,
    whoMayPay: noPolicy,
  });
  if (r.status !== 'rejected') throw new Error(`expected a refusal, got ${r.status}`);
  expect(r.errorCount).toBe(made.planted.length + made.duplicateRows.length);
  const lines = readFileSync(r.errorsPath, 'utf8').trimEnd().split('\n');
  expect(lines).toHaveLength(r.errorCount);
  const named = lines.map((line) => {
    const [, row, rule] = /^row (\d+), .*\((\w+)\)$/.exec(line) ?? [];
    return { row: Number(row), rule };
  });
  const wanted = [
    ...made.planted,
    ...made.duplicateRows.map((row) => ({ row, rule: 'reference_duplicate' })),
  ].sort((a, b) => a.row - b.row);
  expect(named).toEqual(wanted);
  expect(r.errors).toHaveLength(Math.min(SHOWN_ERRORS, r.errorCount));
  expect(r.errors.map((e) => e.row)).toEqual(wanted.slice(0, SHOWN_ERRORS).map((w) => w.row));
  // Nothing of the refused batch in the store: no chunk, no meta, not even its folder.
  const store = join(paths.dataDir, 'store');
  expect(existsSync(store) ? readdirSync(store) : []).toEqual([]);
  expect(existsSync(r.rejectedPath)).toBe(true);
});
