import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moscowDay } from '../../src/reconcile/days';
import type { DayReport } from '../../src/reconcile/report';
import { runCli } from '../harness/cli-process';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { sharedStorePostgres, storeHost } from '../harness/hosts';
import type { ScratchPostgres } from '../harness/postgres';
import { DEPOSIT_ACCOUNT } from '../harness/reconciliation';
import { startStack, type Stack } from '../harness/stack';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_180S = underLoad(180_000);
const TIMEOUT_600S = underLoad(600_000);

/**
 * A reconciliation day on hosts that share nothing but Temporal and the PostgreSQL store: the worker
 * in its own working directory writes the day's statement, differences and reports to the store; a
 * command line in another directory reconciles the day through it, gets the reports in its own
 * folder and reads the day's state back. The worker's folder keeps nothing of reconciliation.
 */
let pg: ScratchPostgres;
let stack: Stack;
let base: string;
let passed = false;
let worker: ChildProcess | undefined;

const host = (name: string) => storeHost(base, name, pg.url);

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'payrun-reconcile-hosts-'));
  pg = await sharedStorePostgres();
  stack = await startStack({ inProcessWorker: false });
}, TIMEOUT_180S);

afterAll(async () => {
  if (worker) await killHard(worker);
  await stack?.stop();
  await pg?.stop();
  if (passed) rmSync(base, { recursive: true, force: true });
  else process.stderr.write(`[reconciliation-hosts] each host's folder is kept in ${base}\n`);
});

test(
  "a day reconciled by a worker on another host: the reports reach the command line's folder, the worker keeps nothing",
  async () => {
    const workerHost = host('worker');
    const cli = host('cli');
    worker = spawnWorkerProcess({ ...stack.workerEnv, ...workerHost.env }, workerHost.dir);

    const paid = await outcome(await startPayout(stack, payoutRequest({ amount: 123_400 })));
    expect(paid.state).toBe('succeeded');

    const day = moscowDay(Date.now());
    const cliEnv = { ...stack.cliEnv('approver'), ...cli.env };
    const run = await runCli(['reconcile', 'day', day, '--account', DEPOSIT_ACCOUNT], cliEnv, cli.dir);
    expect(run).toMatchObject({ code: 0 });
    const dayDir = join(cli.dir, 'data', 'reconciliation', DEPOSIT_ACCOUNT, 'days', day);
    const json = join(dayDir, `reconciliation-${DEPOSIT_ACCOUNT}-${day}.json`);
    for (const file of [json, join(dayDir, `1c-${DEPOSIT_ACCOUNT}-${day}.txt`)]) {
      expect(run.stdout).toContain(file);
      expect(existsSync(file)).toBe(true);
    }
    const report = JSON.parse(readFileSync(json, 'utf8')) as DayReport;
    expect(report.matched.map((m) => m.reference)).toContain(paid.reference);

    // The day's state is the store's: another command line reads it back.
    const status = await runCli(['reconcile', 'status'], { ...cliEnv, PAYRUN_LANG: 'en' }, cli.dir);
    expect(status).toMatchObject({ code: 0 });
    expect(status.stdout).toContain(`${DEPOSIT_ACCOUNT}: reconciled up to ${day}`);

    // Nothing of reconciliation on the worker's disk: its steps handed the day over through the store.
    expect(existsSync(join(workerHost.dir, 'data', 'reconciliation'))).toBe(false);
    passed = true;
  },
  TIMEOUT_600S,
);
