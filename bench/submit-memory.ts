/**
 * Issue 38: `payrun batch submit` in flat memory. For each size (default 150 000 and 1 000 000 rows)
 * writes a file of the three methods with a mistake planted every 10 000 rows and a reference reused
 * every 10 000 rows (bench/submit-file.ts), then runs the built CLI on it twice in a child process
 * under `/usr/bin/time -v` (peak RSS, the kernel's maxrss):
 *   - refused: the whole-file policy; every planted error and duplicate row must be named in its
 *     errors file, in row order;
 *   - accepted: `--partial`; the valid rows are sealed into the batch store (folder) and the batch
 *     starts on a Temporal dev server (no worker: nothing runs, nothing is paid); the stored row count
 *     must be the file's valid rows.
 * Prints each run's peak RSS and seconds, and the ratio of the largest size to the smallest (target
 * ≤ 1.3). Needs `npm run build` (bin/payrun runs dist/).
 *
 *   node -r ./test/harness/ts-register.js bench/submit-memory.ts [rows…]
 *   node -r ./test/harness/ts-register.js bench/submit-memory.ts --child-heap=96 [rows…]
 *
 * `--child-heap=MB` runs the CLI with V8's old space capped at MB (--max-old-space-size): a run that
 * needed memory in proportion to its rows would fail there; one that only lets garbage pile up
 * between collections (V8 grows its heap with a process's allocation rate) stays flat.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchStoreFor } from '../src/batch/store/open';
import { startBenchTemporal } from './batch';
import { writeSubmitFile, type SubmitFile } from './submit-file';

const ROOT = join(__dirname, '..');
const PLANT_EVERY = 10_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  peakRssMb: number;
  seconds: number;
}

const childHeap = process.argv.find((a) => a.startsWith('--child-heap='))?.split('=')[1];

function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const started = process.hrtime.bigint();
  const heap = childHeap ? [`--max-old-space-size=${childHeap}`] : [];
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/time',
      ['-v', process.execPath, ...heap, join(ROOT, 'bin', 'payrun'), ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 * 2 ** 20, timeout: 60 * 60_000 },
      (err, stdout, stderr) => {
        const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          stderr,
          peakRssMb: kb / 1024,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
        });
      },
    );
  });
}

/** Every planted mistake and duplicate row named in the errors file, in row order, and nothing else. */
function checkNamed(errorsPath: string, made: SubmitFile): string | undefined {
  const wanted = [
    ...made.planted,
    ...made.duplicateRows.map((row) => ({ row, rule: 'reference_duplicate' })),
  ].sort((a, b) => a.row - b.row);
  const named = readFileSync(errorsPath, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => /^(?:row|строка) (\d+),.*\((\w+)\)$/.exec(line))
    .map((m) => ({ row: Number(m?.[1]), rule: m?.[2] }));
  if (named.length !== wanted.length) return `${named.length} errors named, ${wanted.length} planted`;
  const i = wanted.findIndex((w, k) => w.row !== named[k]!.row || w.rule !== named[k]!.rule);
  return i < 0
    ? undefined
    : `error ${i}: planted ${JSON.stringify(wanted[i])}, named ${JSON.stringify(named[i])}`;
}

async function main(): Promise<void> {
  const sizes = process.argv
    .slice(2)
    .filter((a) => !a.startsWith('--'))
    .map(Number);
  if (sizes.length === 0) sizes.push(150_000, 1_000_000);
  const temporal = await startBenchTemporal();
  const { startStack } = await import('../test/harness/stack');
  // Every batch waits for an approver (policy {}), and no worker runs: submitting is all that happens.
  const stack = await startStack({ inProcessWorker: false, policy: {} });
  const results: { rows: number; kind: string; run: Run }[] = [];
  let failed = false;
  try {
    for (const rows of sizes) {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-submit-memory-'));
      const paths = { PAYRUN_DATA_DIR: join(dir, 'data'), PAYRUN_BATCHES_DIR: join(dir, 'batches') };
      const env = { ...stack.cliEnv('preparer'), ...paths, PAYRUN_LANG: 'en' };
      const file = join(dir, `submit-${rows}.csv`);
      const made = writeSubmitFile(file, rows, PLANT_EVERY);
      const mb = statSync(file).size / 2 ** 20;
      console.log(
        `${rows} rows (${mb.toFixed(0)} MB${childHeap ? `, CLI old space capped at ${childHeap} MB` : ''}): ${made.planted.length} planted errors, ${made.duplicateRows.length} duplicate rows; load ${loadavg()[0]!.toFixed(1)}`,
      );

      const refused = await timed(['batch', 'submit', file], env);
      const errorsPath = /moved to (.*)$/m.exec(refused.stderr)?.[1]?.trim();
      const why =
        refused.code === 0 || !errorsPath
          ? `not refused (exit ${refused.code}): ${refused.stderr.slice(-500)}`
          : checkNamed(`${errorsPath}.errors.txt`, made);
      console.log(
        `  refused:  peak RSS ${refused.peakRssMb.toFixed(0)} MB, ${refused.seconds.toFixed(1)} s; ${why ?? 'every planted error and duplicate named'}`,
      );
      failed ||= why !== undefined;
      results.push({ rows, kind: 'refused', run: refused });

      // The refused file was moved to rejected/: the same bytes again, accepted in part.
      writeSubmitFile(file, rows, PLANT_EVERY);
      const accepted = await timed(['batch', 'submit', '--partial', file], env);
      const batchId = /(batch-[0-9a-f]{16})/.exec(accepted.stdout + accepted.stderr)?.[1];
      let stored = 'no batch id';
      if (accepted.code === 0 && batchId) {
        const meta = await batchStoreFor(paths.PAYRUN_DATA_DIR).readMeta(batchId);
        const valid = rows - made.planted.length - made.duplicateRows.length;
        stored =
          meta.rowCount === valid
            ? `${meta.rowCount} valid rows stored in ${meta.chunkCount} sealed chunks (${batchId})`
            : `${meta.rowCount} rows stored, ${valid} valid`;
        failed ||= meta.rowCount !== valid;
      } else failed = true;
      console.log(
        `  accepted: peak RSS ${accepted.peakRssMb.toFixed(0)} MB, ${accepted.seconds.toFixed(1)} s; ${accepted.code === 0 ? stored : accepted.stderr.slice(-500)}`,
      );
      results.push({ rows, kind: 'accepted', run: accepted });
      rmSync(dir, { recursive: true, force: true });
    }
    const small = Math.min(...sizes);
    const large = Math.max(...sizes);
    for (const kind of ['refused', 'accepted']) {
      const of = (rows: number) => results.find((r) => r.rows === rows && r.kind === kind)!.run.peakRssMb;
      if (small === large) continue;
      const ratio = of(large) / of(small);
      console.log(`peak RSS ${kind} ${large}/${small}: ${ratio.toFixed(2)} (target ≤ 1.3)`);
      failed ||= ratio > 1.3;
    }
  } finally {
    await stack.stop();
    await temporal.stop();
  }
  // The stack's servers may leave handles behind: a bench ends when its figures are printed.
  process.exit(failed ? 1 : 0);
}

void main();
