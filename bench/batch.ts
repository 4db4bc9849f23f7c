/**
 * An N-row batch end to end against the bank sandbox: the real batch workflow, child payouts,
 * webhooks through the ingress, an in-process worker. Prints rows/s, peak RSS of this process
 * (worker + sandbox + ingress), time to first payout, and checks one ledger payout per row.
 *
 *   node -r ./test/harness/ts-register.js bench/batch.ts [rows=1000] [maxInFlight=50] [--no-codec] [--workers=N] [--people=N] [--approvals]
 *
 * Also prints CPU seconds per row: this process (worker, sandbox, ingress) and the dev server, and the
 * average event count of a sample of payout histories. `--no-codec` runs Temporal payloads
 * unencrypted (the baseline that prices the codec); the batch store stays encrypted either way.
 * PAYRUN_TEMPORAL_ADDRESS: use that Temporal server instead of starting a dev server.
 * `--workers=N`: N `payrun worker` processes instead of the in-process worker (their CPU is counted
 * with this process's), the way production scales out (docs/performance.md, scale-out).
 * SANDBOX_PROFILE=realistic: the sandbox's slow bank (docs/sandbox.md). PAYRUN_BENCH_WORKER_OPTIONS: JSON
 * WorkerOptions for the in-process worker, e.g. '{"maxCachedWorkflows":200}' (the tuning sweep). bench/compare.ts calls
 * runBatchBench() for its payrun line.
 * `--people=N`: the self-employed rows spread over N persons (default 1: every one the sandbox's test person,
 * whose one ledger then continues as new during a large batch). `--approvals`: the batch waits for the
 * approvals its policy asks, as production runs. The result's `pace` is the rows/s of the first and the last
 * 2 000 paid rows (a fifth of the rows each for a smaller batch) and the one over the other: 1 for a steady
 * rate; issue 38's bar is 0.8.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import type { WorkerOptions } from '@temporalio/worker';
import { startDevServer } from '../src/devserver';
import { SANDBOX_PROFILES, type SandboxOptions, type SandboxProfile } from '../src/sandbox';
import { approveBatchUpdate, batchProgressQuery } from '../workflows/batch/contract';
import { taxpayerVerdictSignal } from '../workflows/taxpayer/contract';
import { batchDecision } from '../test/harness/approvals';
import { countHistories, type HistoryCounts } from './history-sample';
import { payoutWorkflowId } from '../workflows/payout/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  freshInn,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../test/harness/batches';
import type { Stack } from '../test/harness/stack';
import type { BatchPaths } from '../src/batch/services/config';
import { killHard, spawnWorkerProcess } from '../test/harness/worker-process';

/** /proc/<pid>/stat's fields after the command name ([1] ppid, [11] utime, [12] stime, [13]/[14] reaped children's). */
export function procStatFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of another process in seconds (Linux /proc; 0 where there is none). */
export function processCpuSeconds(pid: number | undefined): number {
  const fields = pid === undefined ? undefined : procStatFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : 0; // clock ticks; 100 Hz on Linux
}

/** CPU seconds every process on the machine has used (user, nice, system, irq, softirq, steal of /proc/stat). */
export function machineCpuSeconds(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return (f[1]! + f[2]! + f[3]! + f[6]! + f[7]! + f[8]!) / 100;
  } catch {
    return NaN;
  }
}

/** Cores the rest of the machine kept busy on average: its CPU over a span less what we measured ourselves. */
export function othersCores(machineCpuS: number, oursMs: number, spanMs: number): number {
  return Math.round((Math.max(0, machineCpuS * 1000 - oursMs) / spanMs) * 100) / 100;
}

/** A line of /proc/<pid>/status in bytes (Linux); 0 where it cannot be read. */
function statusBytes(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number {
  if (pid === undefined) return 0;
  try {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    )?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}
/** A process's peak resident set since it started (VmHWM). */
export const peakRssBytes = (pid: number | undefined) => statusBytes(pid, 'VmHWM');
/** A process's resident set now (VmRSS). */
const rssBytes = (pid: number | undefined) => statusBytes(pid, 'VmRSS');

/** The process listening on a local TCP port (Linux /proc; our own processes only), if any. */
function pidListeningOn(port: number): number | undefined {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(hexPort) && f[3] === '0A') inodes.add(f[9]!); // 0A: LISTEN
    }
  }
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(pid);
      }
    } catch {
      // another user's process, or one that ended meanwhile
    }
  }
  return undefined;
}

export interface BenchTemporal {
  address: string;
  /** The server's pid where it is known (its CPU is read from /proc). */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * The Temporal server a benchmark runs on: PAYRUN_TEMPORAL_ADDRESS if set, else one dev server of
 * its own (SQLite in a temporary folder, the settings the tests use). Sets what the test harness
 * reads: PAYRUN_TEST_TEMPORAL_ADDRESS and a throwaway PAYRUN_PAYLOAD_KEYS (encryption costs the same
 * whatever the key).
 */
export async function startBenchTemporal(): Promise<BenchTemporal> {
  process.env.PAYRUN_PAYLOAD_KEYS = `bench:${randomBytes(32).toString('base64')}`;
  const given = process.env.PAYRUN_TEMPORAL_ADDRESS;
  let temporal: BenchTemporal;
  if (given) {
    const port = Number(/:(\d+)$/.exec(given)?.[1]);
    temporal = { address: given, pid: port ? pidListeningOn(port) : undefined, stop: async () => {} };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-'));
    const server = await startDevServer({
      dbFile: join(dir, 'temporal.db'),
      logFile: join(dir, 'temporal.log'),
    });
    temporal = {
      address: server.address,
      pid: server.pid,
      // Its store goes with it: a 100 000-row run would leave gigabytes of SQLite behind.
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = temporal.address;
  return temporal;
}

export interface BatchBenchOptions {
  rows: number;
  maxInFlight: number;
  /** false: Temporal payloads unencrypted (default true, as payrun runs). */
  codec?: boolean;
  /** Sandbox settings, e.g. `{ profile: 'realistic' }`. */
  sandbox?: Partial<SandboxOptions>;
  /** The Temporal server's pid, for its CPU (startBenchTemporal().pid). */
  serverPid?: number;
  /** How many payout histories to count events in (spread over the file), or 'all'; default 20. */
  historySample?: number | 'all';
  /** Approvals on, as production runs: the batch waits for an approver's signed approval. Default off. */
  approvals?: boolean;
  /** The self-employed rows spread over this many persons; 1 (default): every one the sandbox's test person. */
  people?: number;
  /** 0 or absent: the in-process worker; N: N `payrun worker` processes (always encrypting). */
  workerProcesses?: number;
  /** Tuning of the in-process worker (the sweep in docs/performance.md). */
  workerOverrides?: Partial<WorkerOptions>;
}

export interface BatchBenchResult {
  batchId: string;
  rows: number;
  maxInFlight: number;
  codec: boolean;
  profile: SandboxProfile;
  submitMs: number;
  firstPayoutMs: number | undefined;
  totalMs: number;
  rowsPerSecond: number;
  peakRssMb: number;
  /** Peak RSS (VmHWM) of the largest `payrun worker` process, with `workerProcesses`. */
  workerPeakRssMb?: number;
  /** CPU of this process (worker, sandbox, ingress, client) per row. */
  cpuMsPerRow: number;
  /** With `workerProcesses`: each `payrun worker` process's CPU per row (also counted in cpuMsPerRow). */
  workerCpuMsPerRow?: number[];
  /** CPU of the Temporal server per row; 0 where its pid is unknown. */
  devServerCpuMsPerRow: number;
  counts: unknown;
  ledgerExactlyOncePerRow: boolean;
  lastRunHistoryLength: number;
  /** The batch's last run's history in bytes, as the server counts it. */
  lastRunHistoryBytes: number | undefined;
  /** Runs of the batch workflow: 1 + the times it continued as new. */
  batchRuns: number;
  /** The 1-minute load average when the batch was submitted and when it finished. */
  load: [number, number];
  /** Cores other processes (not this one, its worker processes or the server) kept busy meanwhile. */
  othersCores: number;
  /** History events of the counted payouts: averages per kind of row, the longest, and any over budget. */
  eventsPerPayout: HistoryCounts;
  people: number;
  /** Runs of every recipient ledger on this server (each continue-as-new adds one). */
  ledgerRuns: number;
  /** History events per row of the workflows beside the payouts (every run on this server, all types). */
  eventsPerRowBeside: { batch: number; ledger: number; taxpayer: number };
  /** Requests the bank sandbox served per row, by path (each signed by the client and answered signed). */
  bankRequestsPerRow: Record<string, number>;
  /** Rows/s of the first and the last `window` paid rows, and the last over the first (steady: about 1). */
  pace: { window: number; firstRowsPerSecond: number; lastRowsPerSecond: number; steady: number };
}

/**
 * The pace of the first and the last `window` rows paid, from the moments the bank's ledger reached each
 * count (`paidAt[i]`: when the i+1-th payout was seen). The first window counts from the first payout, so
 * the submit and the start-up are not in it.
 */
export function paceOf(paidAt: number[], rows: number): BatchBenchResult['pace'] {
  const window = Math.max(1, Math.min(2_000, Math.floor(rows / 5)));
  const rate = (from: number, to: number) =>
    paidAt[to] !== undefined && paidAt[from] !== undefined && paidAt[to]! > paidAt[from]!
      ? ((to - from) * 1000) / (paidAt[to]! - paidAt[from]!)
      : 0;
  const last = paidAt.length - 1;
  const first = rate(0, Math.min(window, last));
  const lastRate = rate(Math.max(0, last - window), last);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    window,
    firstRowsPerSecond: round(first),
    lastRowsPerSecond: round(lastRate),
    steady: first > 0 ? round(lastRate / first) : 0,
  };
}

async function bankRequestsPerRow(stack: Stack, rows: number): Promise<Record<string, number>> {
  const res = await fetch(`${stack.sandbox.url}/__admin/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.fromEntries(
    Object.entries(counts).map(([path, n]) => [path, Math.round((n / rows) * 100) / 100]),
  );
}

/** Every run of a workflow type on the bench's server, its events summed (describe: visibility lags), per row. */
async function eventsPerRow(stack: Stack, workflowType: string, rows: number): Promise<number> {
  let events = 0;
  for await (const run of stack.client.workflow.list({ query: `WorkflowType = '${workflowType}'` }))
    events += (await stack.client.workflow.getHandle(run.workflowId, run.runId).describe()).historyLength;
  return Math.round((events / rows) * 100) / 100;
}

/** Event counts of payout histories: every one with `'all'`, else `sample` in pairs spread over the file. */
async function payoutEvents(
  stack: Stack,
  references: string[],
  sample: number | 'all',
  selfEmployed: (i: number) => boolean,
) {
  let picked = references.map((_, i) => i);
  if (sample !== 'all') {
    const pairs = Math.max(1, Math.floor(sample / 2));
    const chosen = new Set<number>();
    for (let k = 0; k < pairs; k++) {
      const i = Math.floor((k * references.length) / pairs / 2) * 2;
      chosen.add(i);
      if (i + 1 < references.length) chosen.add(i + 1);
    }
    picked = [...chosen];
  }
  return countHistories(
    stack.client,
    picked.map((i) => payoutWorkflowId(references[i]!)),
    (k) => selfEmployed(picked[k]!),
    taxpayerVerdictSignal.name,
  );
}

/** Row i's tax number: even rows are self-employed, spread over `people` persons (1: the sandbox's one). */
export function benchInn(i: number, people: number): string | undefined {
  return people <= 1 ? undefined : freshInn(1 + ((i / 2) % people));
}

/** One batch through the whole of payrun; needs startBenchTemporal() (or the test harness) first. */
export async function runBatchBench(opts: BatchBenchOptions): Promise<BatchBenchResult> {
  const [result] = await runBatchSequence(opts, [opts.rows]);
  return result!;
}

/**
 * Batches of the given sizes one after another on one stack and the same worker (process): what a
 * long-lived worker does. Each result's worker peak RSS is the highest VmRSS sampled during that batch
 * (the process's own high-water mark would carry the earlier batches'); with one size, it is VmHWM.
 */
export async function runBatchSequence(
  opts: BatchBenchOptions,
  sizes: number[],
): Promise<BatchBenchResult[]> {
  const codec = opts.codec ?? true;
  const { startStack } = await import('../test/harness/stack');
  const processes = opts.workerProcesses ?? 0;
  if (processes > 0 && !codec) throw new Error('--workers: `payrun worker` always encrypts; drop --no-codec');
  // The sandbox's default deposit (100 M RUB) covers 66 000 of the file's 1 500 RUB rows; a larger batch
  // would wait for funds forever.
  const allRows = sizes.reduce((a, b) => a + b, 0);
  const deposit = Math.max(10_000_000_000, allRows * 150_000 * 2);
  const { NO_APPROVALS } = await import('../test/harness/stack');
  const events = await (await import('./event-endpoint')).benchEventEndpoint();
  const stack = await startStack({
    ...(events ? { events: { endpoints: events.endpoints } } : {}),
    // Every row pays the sandbox's one test person: their yearly cap is lifted so a large run is not
    // refused as limit_exceeded (the reservation is still made and measured, on one busy ledger).
    // With approvals the policy's defaults: submitted files wait for an approver (production's rule).
    policy: { ...(opts.approvals ? {} : NO_APPROVALS), self_employed_yearly_cap: '100 000 000 000,00' },
    ...(codec ? {} : { dataConverterOverride: {} }),
    sandbox: { ...opts.sandbox, accounts: { initialDepositKopecks: deposit, ...opts.sandbox?.accounts } },
    ...(processes > 0 ? { inProcessWorker: false } : {}),
    ...(opts.workerOverrides ? { workerOverrides: opts.workerOverrides } : {}),
  });
  const paths = batchTestPaths();
  // After batchTestPaths(): the processes inherit its PAYRUN_DATA_DIR (the batch store).
  const workers = await startWorkerProcesses(stack, processes);
  try {
    const results: BatchBenchResult[] = [];
    for (const rows of sizes)
      results.push(
        await payOneBatch(
          stack,
          paths,
          workers,
          { ...opts, rows, codec },
          sizes.length === 1 ? peakRssBytes : rssBytes,
        ),
      );
    return results;
  } finally {
    await Promise.all(workers.map((w) => killHard(w)));
    await stack.stop();
    await events?.receiver.close();
  }
}

async function payOneBatch(
  stack: Stack,
  paths: BatchPaths,
  workers: ChildProcess[],
  opts: BatchBenchOptions & { codec: boolean },
  workerRss: (pid: number | undefined) => number,
): Promise<BatchBenchResult> {
  const { rows, maxInFlight, codec } = opts;
  let peakRss = 0;
  let workerPeakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    workerPeakRss = Math.max(workerPeakRss, ...workers.map((w) => workerRss(w.pid)));
  }, 200);
  try {
    const p = uniquePrefix();
    const references = Array.from({ length: rows }, (_, i) => `${p}-${String(i).padStart(6, '0')}`);
    // Half self-employed (one taxpayer check, then its cached verdict), half plain payouts.
    const people = opts.people ?? 1;
    const bytes = batchCsv(
      references.map((reference, i) => {
        const inn = i % 2 === 0 ? benchInn(i, people) : undefined;
        return { reference, selfEmployed: i % 2 === 0, ...(inn ? { inn } : {}) };
      }),
    );
    const loadBefore = loadavg()[0]!;
    const machineStart = machineCpuSeconds();
    const started = Date.now();
    const cpuStart = process.cpuUsage();
    const eachWorkerCpuStart = workers.map((w) => processCpuSeconds(w.pid));
    const workersCpuStart = workersCpuSeconds(workers);
    const serverCpuStart = processCpuSeconds(opts.serverPid);
    const r = await dropAndSubmit(stack, paths, `bench-${rows}.csv`, bytes, {
      batchOptions: { maxInFlight, payout: { pollAfterMs: 10_000 } },
    });
    if (opts.approvals) await approve(stack, paths, r.batchId);
    const submittedMs = Date.now() - started;
    let firstPayoutMs: number | undefined;
    // When the bank's ledger reached each count of payouts (the pace of the first and the last rows).
    const paidAt: number[] = [];
    const watch = setInterval(() => {
      const now = Date.now();
      const paidNow = stack.sandbox.ledger().filter((e) => e.kind === 'payout').length;
      while (paidAt.length < paidNow) paidAt.push(now);
      if (firstPayoutMs === undefined && paidNow > 0) firstPayoutMs = now - started;
    }, 100);
    const result = await batchHandle(stack, r.batchId).result();
    const totalMs = Date.now() - started;
    const cpu = process.cpuUsage(cpuStart);
    const processCpuS = (cpu.user + cpu.system) / 1e6 + workersCpuSeconds(workers) - workersCpuStart;
    const eachWorkerCpuS = workers.map((w, i) => processCpuSeconds(w.pid) - eachWorkerCpuStart[i]!);
    const serverCpuS = processCpuSeconds(opts.serverPid) - serverCpuStart;
    const machineCpuS = machineCpuSeconds() - machineStart;
    clearInterval(watch);
    workerPeakRss = Math.max(workerPeakRss, ...workers.map((w) => workerRss(w.pid)));
    const paid = [...ledgerPayouts(stack, references).values()];
    const history = await batchHandle(stack, r.batchId).describe();
    const progress = await batchHandle(stack, r.batchId).query(batchProgressQuery);
    return {
      batchId: r.batchId,
      rows,
      maxInFlight,
      codec,
      profile: opts.sandbox?.profile ?? 'instant',
      submitMs: submittedMs,
      firstPayoutMs,
      totalMs,
      rowsPerSecond: Math.round((rows / totalMs) * 10_000) / 10,
      peakRssMb: Math.round(peakRss / 1_048_576),
      ...(workers.length ? { workerPeakRssMb: Math.round(workerPeakRss / 1_048_576) } : {}),
      cpuMsPerRow: Math.round((processCpuS * 1000) / rows),
      ...(workers.length
        ? { workerCpuMsPerRow: eachWorkerCpuS.map((s) => Math.round((s * 1000) / rows)) }
        : {}),
      devServerCpuMsPerRow: Math.round((serverCpuS * 1000) / rows),
      load: [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0]! * 10) / 10],
      othersCores: othersCores(machineCpuS, (processCpuS + serverCpuS) * 1000, totalMs),
      counts: result.counts,
      ledgerExactlyOncePerRow: paid.length === rows && paid.every((n) => n === 1),
      lastRunHistoryLength: history.historyLength,
      lastRunHistoryBytes: history.historySize,
      batchRuns: progress.runs,
      eventsPerPayout: await payoutEvents(stack, references, opts.historySample ?? 20, (i) => i % 2 === 0),
      people,
      ledgerRuns: (await stack.client.workflow.count(`WorkflowType = 'recipientWorkflow'`)).count,
      eventsPerRowBeside: {
        batch: await eventsPerRow(stack, 'batchWorkflow', rows),
        ledger: await eventsPerRow(stack, 'recipientWorkflow', rows),
        taxpayer: await eventsPerRow(stack, 'taxpayerWorkflow', rows),
      },
      pace: paceOf(paidAt, rows),
      bankRequestsPerRow: await bankRequestsPerRow(stack, rows),
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The approvals the policy asks of the batch, each signed and sent through the batch's Update as the CLI
 * sends it: one approver, and a second above the policy's two-approver amount (a 2 000-row file is above
 * it; with one approval the batch waited for ever and the bench with it).
 */
async function approve(stack: Stack, paths: BatchPaths, batchId: string): Promise<void> {
  const handle = batchHandle(stack, batchId);
  const waiting = await waitForProgress(handle, (p) => p.phase === 'awaiting_approval');
  const needed = waiting.approval?.needed ?? 1;
  for (const person of ['approver', 'approver2'].slice(0, needed)) {
    const signed = await batchDecision(stack, paths.dataDir, batchId, person);
    await handle.executeUpdate(approveBatchUpdate, { args: [signed] });
  }
}

const workersCpuSeconds = (workers: ChildProcess[]) =>
  workers.reduce((sum, w) => sum + processCpuSeconds(w.pid), 0);

/** N `payrun worker` processes on the stack's task queue, returned once all N poll it. */
async function startWorkerProcesses(stack: Stack, n: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: n }, () => spawnWorkerProcess(stack.workerEnv));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const exited = workers.find((w) => w.exitCode !== null || w.signalCode !== null);
    if (exited) throw new Error(`a worker process exited before polling (pid ${exited.pid})`);
    const { pollers } = await stack.client.workflowService.describeTaskQueue({
      namespace: stack.client.options.namespace,
      taskQueue: { name: stack.taskQueue },
      taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    if (new Set(pollers?.map((p) => p.identity)).size >= n) return workers;
    if (Date.now() > deadline) throw new Error(`${n} worker processes not all polling after 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const codec = !args.includes('--no-codec');
  const workersArg = args.find((a) => a.startsWith('--workers='));
  const workerProcesses = workersArg ? Number(workersArg.slice('--workers='.length)) : 0;
  if (!Number.isInteger(workerProcesses) || workerProcesses < 0 || workerProcesses > 16)
    throw new Error(`--workers=N: N must be a whole number from 0 to 16, not ${workersArg}`);
  const peopleArg = args.find((a) => a.startsWith('--people='));
  const people = peopleArg ? Number(peopleArg.slice('--people='.length)) : 1;
  if (!Number.isInteger(people) || people < 1 || people > 100_000)
    throw new Error(`--people=N: N must be a whole number from 1 to 100 000, not ${peopleArg}`);
  const [rowsArg, inFlightArg] = args.filter((a) => !a.startsWith('--'));
  const profile = process.env.SANDBOX_PROFILE || 'instant';
  if (!Object.hasOwn(SANDBOX_PROFILES, profile)) {
    console.error(
      `SANDBOX_PROFILE: must be one of ${Object.keys(SANDBOX_PROFILES).join(', ')}, not ${profile}`,
    );
    process.exit(2);
  }
  const temporal = await startBenchTemporal();
  try {
    const result = await runBatchBench({
      rows: Number(rowsArg ?? 1000),
      maxInFlight: Number(inFlightArg ?? 50),
      codec,
      sandbox: { profile: profile as SandboxProfile },
      serverPid: temporal.pid,
      workerProcesses,
      people,
      approvals: args.includes('--approvals'),
      ...(process.env.PAYRUN_BENCH_WORKER_OPTIONS
        ? { workerOverrides: JSON.parse(process.env.PAYRUN_BENCH_WORKER_OPTIONS) as Partial<WorkerOptions> }
        : {}),
    });
    console.log(JSON.stringify(result));
  } finally {
    await temporal.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
