/**
 * Scale-out, measured (issue 38): the same batch paid by 1, 2 and 3 `payrun worker` processes that share
 * one Temporal on PostgreSQL and payrun's PostgreSQL batch store, one after another in one run, so every
 * line meets the same machine. Each line gives rows/s, rows/s per worker process, and CPU ms per row on
 * each side: every worker process, this process (the bank sandbox, the ingress, the client), the
 * Temporal server, and PostgreSQL (its live processes plus the backends that ended, which the
 * postmaster has reaped), with the transactions Temporal committed in its two databases per row.
 *
 *   node -r ./test/harness/ts-register.js bench/scale-out.ts [rows=1000] [maxInFlight=50] [--workers=1,2,3] [--rounds=1]
 *
 * It starts (or reuses) scripts/temporal-postgres.sh's cluster of this checkout and its payrun database;
 * `--rounds=2` runs the worker counts again in the reverse order (a machine that drifts shows as a
 * difference between the rounds). docs/performance.md, "Scale-out on Temporal on PostgreSQL".
 */
process.env.LOG_LEVEL ??= 'warn';

import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { machineCpuSeconds, procStatFields, runBatchBench, startBenchTemporal } from './batch';

const ROOT = join(__dirname, '..');
const PG_DIR = process.env.TEMPORAL_PG_DIR || join(ROOT, '.temporal-postgres');

/** `KEY=value` lines a script printed, as an object. */
function envLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Z_]+)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

function cluster(): { address: string; storeUrl: string } {
  const script = join(ROOT, 'scripts/temporal-postgres.sh');
  const started = envLines(
    execFileSync(script, ['start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const store = envLines(execFileSync(script, ['batch-store-url'], { encoding: 'utf8' }));
  if (!started.TEMPORAL_ADDRESS || !store.PAYRUN_BATCH_STORE_URL)
    throw new Error('scripts/temporal-postgres.sh printed no TEMPORAL_ADDRESS or PAYRUN_BATCH_STORE_URL');
  return { address: started.TEMPORAL_ADDRESS, storeUrl: store.PAYRUN_BATCH_STORE_URL };
}

/** PostgreSQL's CPU seconds so far: the postmaster, its live children, and the children it has reaped. */
function postgresCpuSeconds(): number {
  const postmaster = Number(readFileSync(join(PG_DIR, 'pgdata/postmaster.pid'), 'utf8').split('\n')[0]);
  const own = procStatFields(postmaster);
  if (!own) throw new Error(`PostgreSQL's postmaster (pid ${postmaster}) is not running`);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const f = procStatFields(Number(entry));
    if (f && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / 100;
}

/** Transactions committed so far in Temporal's two databases (what its persistence QPS counts). */
function temporalTransactions(): number {
  const state = envLines(readFileSync(join(PG_DIR, 'state.env'), 'utf8'));
  const sql =
    "SELECT sum(xact_commit) FROM pg_stat_database WHERE datname IN ('temporal', 'temporal_visibility')";
  const connection = ['-h', '127.0.0.1', '-p', state.PG_PORT!, '-U', 'temporal', '-d', 'postgres'];
  const out = execFileSync('psql', ['-X', '-A', '-t', ...connection, '-c', sql], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: state.PG_PASSWORD },
  });
  return Number(out.trim());
}

function listArg(args: string[], name: string, fallback: number[]): number[] {
  const given = args.find((a) => a.startsWith(`--${name}=`));
  if (!given) return fallback;
  const values = given
    .slice(name.length + 3)
    .split(',')
    .map(Number);
  if (values.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
    throw new Error(`--${name}: whole numbers from 1 to 16, comma-separated, not ${given}`);
  return values;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const [rowsArg, inFlightArg] = args.filter((a) => !a.startsWith('--'));
  const rows = Number(rowsArg ?? 1000);
  const maxInFlight = Number(inFlightArg ?? 50);
  const counts = listArg(args, 'workers', [1, 2, 3]);
  const [rounds] = listArg(args, 'rounds', [1]);
  const { address, storeUrl } = cluster();
  process.env.PAYRUN_TEMPORAL_ADDRESS = address;
  process.env.PAYRUN_BATCH_STORE = 'postgres';
  process.env.PAYRUN_BATCH_STORE_URL = storeUrl;
  const temporal = await startBenchTemporal();
  const order = Array.from({ length: rounds! }, (_, r) =>
    r % 2 === 0 ? counts : [...counts].reverse(),
  ).flat();
  const lines: string[] = [];
  try {
    for (const workers of order) {
      const pgStart = postgresCpuSeconds();
      const xactStart = temporalTransactions();
      const machineStart = machineCpuSeconds();
      const r = await runBatchBench({ rows, maxInFlight, workerProcesses: workers, serverPid: temporal.pid });
      const pgMsPerRow = Math.round(((postgresCpuSeconds() - pgStart) * 1000) / rows);
      const transactionsPerRow = Math.round(((temporalTransactions() - xactStart) / rows) * 10) / 10;
      const machineMsPerRow = Math.round(((machineCpuSeconds() - machineStart) * 1000) / rows);
      const each = r.workerCpuMsPerRow ?? [];
      const workersMs = each.reduce((a, b) => a + b, 0);
      const line = {
        workers,
        rowsPerSecond: r.rowsPerSecond,
        rowsPerSecondPerWorker: Math.round((r.rowsPerSecond / workers) * 10) / 10,
        cpuMsPerRow: {
          workers: workersMs,
          eachWorker: each,
          benchProcess: r.cpuMsPerRow - workersMs,
          temporalServer: r.devServerCpuMsPerRow,
          postgres: pgMsPerRow,
          machine: machineMsPerRow,
        },
        temporalTransactionsPerRow: transactionsPerRow,
        eventsPerPayout: r.eventsPerPayout,
        paidOncePerRow: r.ledgerExactlyOncePerRow,
        counts: r.counts,
        load: r.load,
        othersCores: Math.max(0, Math.round((r.othersCores - (pgMsPerRow * rows) / r.totalMs) * 100) / 100),
      };
      console.log(JSON.stringify(line));
      const c = line.cpuMsPerRow;
      lines.push(
        `| ${workers} | ${line.rowsPerSecond} | ${line.rowsPerSecondPerWorker} | ${c.workers} (${each.join(' + ')}) | ${c.benchProcess} | ${c.temporalServer} | ${c.postgres} | ${c.machine} | ${line.temporalTransactionsPerRow} | ${line.eventsPerPayout.all} (longest ${line.eventsPerPayout.max}) | ${line.paidOncePerRow ? 'yes' : 'NO'} | ${line.load.join('–')} |`,
      );
    }
  } finally {
    await temporal.stop();
  }
  console.log(
    [
      '| workers | rows/s | rows/s per worker | CPU ms/row: workers (each) | sandbox + ingress + client | temporal-server | PostgreSQL | machine | Temporal’s PostgreSQL transactions/row | events/payout | paid once | load |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...lines,
    ].join('\n'),
  );
  // The batch store's PostgreSQL pool in this process would keep it alive after the last line.
  process.exit(lines.some((l) => l.includes('| NO |')) ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
