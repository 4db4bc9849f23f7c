import type { ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchWorkflowId } from '../../workflows/batch/contract';
import { contentHash } from '../../src/csv';
import {
  batchCsv,
  batchHandle,
  freshInn,
  ledgerPayouts,
  readReport,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { sharedStorePostgres, storeHost } from '../harness/hosts';
import type { ScratchPostgres } from '../harness/postgres';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnPayrunProcess, spawnWorkerProcess } from '../harness/worker-process';
import { underLoad, workTimeout } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_120S = underLoad(120_000);
const TIMEOUT_180S = underLoad(180_000);

/**
 * Hosts that share nothing but Temporal and the PostgreSQL batch store: a watcher, two workers (one
 * after the other) and a command line, each a process in its own working directory with its own
 * PAYRUN_DATA_DIR and PAYRUN_BATCHES_DIR. A file dropped in the watcher's inbox is paid by a worker
 * that is SIGKILLed mid-batch and another that takes over; nothing is lost or paid twice, the watcher
 * gets the file and the report into its done/, and a command line elsewhere reads the report.
 */
const ROWS = 60;

let pg: ScratchPostgres;
let stack: Stack;
let base: string;
let passed = false;
const children: ChildProcess[] = [];

/** One "host": a working directory with its own data and batches folders. */
const host = (name: string) => storeHost(base, name, pg.url);

/** Its output kept in its own directory: the post-mortem of a failing run (the folder is kept then). */
function keepLog(child: ChildProcess, cwd: string, name: string): ChildProcess {
  const log = createWriteStream(join(cwd, `${name}.log`));
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  children.push(child);
  return child;
}

function spawnWatcher(cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return keepLog(spawnPayrunProcess(['watch', '--interval', '1'], env, cwd), cwd, 'watcher');
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'payrun-hosts-'));
  pg = await sharedStorePostgres();
  // Bank calls take a moment, so the batch is still paying when its first worker is killed.
  stack = await startStack({ inProcessWorker: false, sandbox: { timings: { apiLatencyMs: 150 } } });
}, TIMEOUT_180S);

afterAll(async () => {
  for (const c of children) await killHard(c);
  await stack?.stop();
  await pg?.stop();
  if (passed) rmSync(base, { recursive: true, force: true });
  else process.stderr.write(`[batch-store-hosts] each host's folder and logs are kept in ${base}\n`);
});

test(
  'a worker killed mid-batch on hosts sharing only the PostgreSQL store loses nothing and pays nothing twice',
  async () => {
    const watcher = host('watcher');
    const first = host('worker-1');
    const second = host('worker-2');
    const cli = host('cli');

    const worker1 = keepLog(
      spawnWorkerProcess({ ...stack.workerEnv, ...first.env }, first.dir),
      first.dir,
      'worker',
    );
    spawnWatcher(watcher.dir, { ...stack.cliEnv('preparer'), ...watcher.env });

    const p = uniquePrefix();
    const references = Array.from({ length: ROWS }, (_, i) => `${p}-${i + 1}`);
    const bytes = batchCsv(references.map((reference, i) => ({ reference, inn: freshInn(5000 + i) })));
    const batchId = batchWorkflowId(contentHash(bytes));
    const inbox = join(watcher.dir, 'batches', 'inbox');
    mkdirSync(inbox, { recursive: true });
    writeFileSync(join(inbox, 'march.csv'), bytes);

    // The watcher submits it; the first worker starts paying it.
    await waitFor(
      async () =>
        await stack.client.workflow
          .getHandle(batchId)
          .describe()
          .then(
            () => true,
            () => false,
          ),
      TIMEOUT_120S,
      'the watcher submitted the batch',
    );
    const handle = batchHandle(stack, batchId);
    const atKill = await waitForProgress(handle, (pr) => pr.finished >= 1, 180_000);
    await killHard(worker1);
    expect(atKill.finished).toBeLessThan(ROWS); // killed mid-batch, not after it

    keepLog(spawnWorkerProcess({ ...stack.workerEnv, ...second.env }, second.dir), second.dir, 'worker');
    await handle.result();

    // Every row final and paid, each reference exactly once at the bank.
    expect([...ledgerPayouts(stack, references).values()]).toEqual(references.map(() => 1));

    // The watcher's host gets the file and its report in done/ (the workers never saw its folders).
    const watcherDone = join(watcher.dir, 'batches', 'done');
    await waitFor(
      async () =>
        existsSync(join(watcherDone, 'march.report.csv')) && existsSync(join(watcherDone, 'march.csv')),
      60_000,
      "the watcher's done/ has the file and its report",
    );
    expect(readdirSync(join(watcher.dir, 'batches', 'processing'))).toEqual([]);
    for (const worker of [first, second])
      expect(existsSync(join(worker.dir, 'batches', 'done', 'march.report.csv'))).toBe(false);

    // A command line on yet another host reads the report from the store.
    const report = await runCli(
      ['batch', 'report', batchId],
      { ...stack.cliEnv('preparer'), ...cli.env },
      cli.dir,
    );
    expect(report).toMatchObject({ code: 0 });
    const reportPath = join(cli.dir, 'batches', 'done', 'march.report.csv');
    expect(report.stdout).toContain(`отчёт ${reportPath}`);
    const rows = readReport(reportPath, false);
    expect(rows.map((r) => r.reference)).toEqual(references);
    expect(rows.map((r) => r.state)).toEqual(references.map(() => 'succeeded'));
    expect(readReport(join(watcherDone, 'march.report.csv'), false)).toEqual(rows);
    passed = true;
    // Rows paid through a worker SIGKILL, on three hosts' processes; the floor covers their start-ups.
  },
  workTimeout({ units: ROWS, perUnitMs: 5_000, floorMs: 600_000 }),
);
