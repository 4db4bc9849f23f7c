import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { batchCsv, batchTestPaths, ledgerPayouts, uniquePrefix } from '../harness/batches';
import { RestartableDevServer, WorkerSupervisor } from '../harness/chaos';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_120S = underLoad(120_000);
const TIMEOUT_180S = underLoad(180_000);
const TIMEOUT_300S = underLoad(300_000);

const ROOT = join(__dirname, '..', '..');
/** How long Temporal stays down: the outage issue 29 saw `--follow` give up on. */
const OUTAGE_MS = 30_000;

/**
 * `payrun batch submit --follow` while Temporal is down for 30 s: it says it is waiting, keeps following,
 * and exits 0 with the batch's summary once the batch finishes. This file runs its own dev server so it
 * can take it down (test/harness/chaos.ts), as the chaos run does; the shared one is never touched.
 */
describe('batch submit --follow through an engine outage', () => {
  let server: RestartableDevServer | undefined;
  let stack: Stack | undefined;
  let workers: WorkerSupervisor | undefined;
  let cli: ChildProcess | undefined;
  let paths: BatchPaths;
  const sharedAddress = process.env.PAYRUN_TEST_TEMPORAL_ADDRESS;

  beforeAll(async () => {
    const dir = mkdtempSync(join(process.env.PAYRUN_TEST_DIR ?? tmpdir(), 'follow-outage-'));
    server = await RestartableDevServer.start(dir);
    // The stack's client and ingress, the CLI and the worker all talk to the server this file stops.
    process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = server.address;
    paths = batchTestPaths();
    stack = await startStack({ inProcessWorker: false });
  }, TIMEOUT_180S);
  afterAll(async () => {
    cli?.kill('SIGKILL');
    await workers?.stop();
    await stack?.stop();
    await server?.stop();
    process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = sharedAddress;
  });

  it(
    'waits the outage out, saying so, and exits 0 with the summary once the batch is paid',
    async () => {
      const p = uniquePrefix();
      const references = [`${p}-1`, `${p}-2`, `${p}-3`];
      const file = join(paths.batchesDir, 'outage.csv');
      writeFileSync(file, batchCsv(references.map((reference) => ({ reference }))));
      const out = { stdout: '', stderr: '' };
      cli = spawn(
        process.execPath,
        [
          '-r',
          join(ROOT, 'test', 'harness', 'ts-register.js'),
          join(ROOT, 'src', 'cli', 'index.ts'),
          'batch',
          'submit',
          file,
          '--follow',
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            ...stack!.cliEnv('preparer'),
            PAYRUN_DATA_DIR: paths.dataDir,
            PAYRUN_BATCHES_DIR: paths.batchesDir,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      cli.stdout!.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
      cli.stderr!.setEncoding('utf8').on('data', (c: string) => (out.stderr += c));
      const exit = new Promise<number | null>((resolve) => cli!.once('exit', resolve));

      // No worker yet: the batch cannot finish before the outage, whatever the machine's speed.
      await waitFor(
        async () => /^batch-[0-9a-f]{16}$/m.test(out.stdout),
        60_000,
        'the CLI to submit and start following',
      );
      await server!.crashAndRestart(async () => {
        await waitFor(
          async () => out.stderr.includes('Temporal не отвечает'),
          TIMEOUT_120S,
          'the CLI to say it is waiting',
        );
        await new Promise((r) => setTimeout(r, OUTAGE_MS)); // the outage itself, not a wait for an event
        expect(cli!.exitCode).toBeNull(); // still following while the server is down
      });
      workers = new WorkerSupervisor(stack!.workerEnv);

      expect(await exit).toBe(0);
      expect(out.stderr).toContain('Temporal снова отвечает');
      expect(out.stdout).toMatch(/выплачено 3/);
      expect([...ledgerPayouts(stack!, references).values()]).toEqual([1, 1, 1]);
    },
    TIMEOUT_300S,
  );
});
