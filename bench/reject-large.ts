/**
 * Issue 38's first bar as a run anyone can repeat: a file of N rows (default 1 000 000; a planted mistake and
 * a reused reference every 10 000 rows, bench/submit-file.ts) submitted with `--partial` through the
 * command line, then rejected by an approver, on a dev server with one `payrun worker` process and
 * `--hogs K` busy loops beside it (default 2). The worker cancels every stored row and writes the report;
 * the script reads the report back and checks it holds every row of the file, each one `cancelled` or
 * `invalid`, and that the batch paid nothing. Prints the times, the load and the counts; exits 1 when a
 * row is missing or in another state.
 *
 *   node -r ./test/harness/ts-register.js bench/reject-large.ts [rows=1000000] [--hogs 2]
 */
process.env.LOG_LEVEL ??= 'warn';

import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { batchStoreFor } from '../src/batch/store/open';
import { startBenchTemporal } from './batch';
import { writeSubmitFile } from './submit-file';

const PLANT_EVERY = 10_000;

function hog(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const hogsAt = args.indexOf('--hogs');
  const hogs = hogsAt >= 0 ? Number(args[hogsAt + 1]) : 2;
  const rows = Number(args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--hogs') ?? 1_000_000);
  const temporal = await startBenchTemporal();
  const { startStack } = await import('../test/harness/stack');
  const { runCli } = await import('../test/harness/cli-process');
  const { spawnWorkerProcess, killHard } = await import('../test/harness/worker-process');
  // Every file waits for an approver (policy {}); the worker is a process of its own, as in production.
  const stack = await startStack({ inProcessWorker: false, policy: {} });
  const dir = mkdtempSync(join(tmpdir(), 'payrun-reject-large-'));
  const paths = { PAYRUN_DATA_DIR: join(dir, 'data'), PAYRUN_BATCHES_DIR: join(dir, 'batches') };
  const worker = spawnWorkerProcess({ ...stack.workerEnv, ...paths });
  const busy = Array.from({ length: hogs }, hog);
  const load: number[] = [];
  const sampler = setInterval(() => load.push(loadavg()[0]!), 10_000);
  let failed = false;
  try {
    const file = join(dir, `reject-${rows}.csv`);
    const made = writeSubmitFile(file, rows, PLANT_EVERY);
    const invalid = made.planted.length + made.duplicateRows.length;
    const started = Date.now();
    const env = { ...stack.cliEnv('preparer'), ...paths, PAYRUN_LANG: 'en' };
    const submit = await runCli(['batch', 'submit', '--partial', file], env);
    const batchId = /(batch-[0-9a-f]{16})/.exec(submit.stdout + submit.stderr)?.[1];
    if (submit.code !== 0 || !batchId) throw new Error(`submit failed (${submit.code}): ${submit.stderr}`);
    const submitted = Date.now();
    console.log(
      `${rows} rows (${invalid} invalid) submitted as ${batchId} in ${((submitted - started) / 1000).toFixed(0)} s`,
    );
    const reject = await runCli(['batch', 'reject', batchId, '--reason', 'bench: rejected whole'], {
      ...stack.cliEnv('approver'),
      ...paths,
      PAYRUN_LANG: 'en',
    });
    if (reject.code !== 0) throw new Error(`reject failed (${reject.code}): ${reject.stderr}`);
    const result = (await stack.client.workflow.getHandle(batchId).result()) as {
      counts: Record<string, number>;
    };
    const finished = Date.now();
    const final = await batchStoreFor(paths.PAYRUN_DATA_DIR).readFinal(batchId);
    if (!final) throw new Error('the batch finished without a final in the store');

    // The report read back a row at a time: every row of the file, each cancelled or invalid.
    const states = new Map<string, number>();
    let reportRows = 0;
    const parser = createReadStream(final.reportPath).pipe(
      parse({ columns: true, bom: true, relax_column_count: true }),
    );
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      reportRows++;
      states.set(record.state ?? '?', (states.get(record.state ?? '?') ?? 0) + 1);
    }
    const others = [...states.keys()].filter((s) => s !== 'cancelled' && s !== 'invalid');
    const paid = stack.sandbox.ledger().filter((e) => e.kind === 'payout').length;
    failed = reportRows !== rows || others.length > 0 || states.get('invalid') !== invalid || paid !== 0;
    console.log(
      `rejected and reported in ${((finished - submitted) / 1000).toFixed(0)} s; the batch counted ${JSON.stringify(result.counts)}`,
    );
    console.log(
      `report: ${reportRows} rows, ${JSON.stringify(Object.fromEntries(states))}; paid at the bank: ${paid}; load ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)} with ${hogs} hogs`,
    );
    console.log(
      failed
        ? 'FAILED: a row missing, in another state, or paid'
        : 'every row cancelled or invalid, nothing paid',
    );
  } finally {
    clearInterval(sampler);
    for (const h of busy) h.kill('SIGKILL');
    await killHard(worker);
    await stack.stop();
    await temporal.stop();
  }
  process.exit(failed ? 1 : 0);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
