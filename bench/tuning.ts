/**
 * Worker tuning, measured (issue 12): the same batch (bench/batch.ts's file, instant bank) paid with
 * the SDK's defaults and with one worker option changed at a time, each on a fresh dev server of the
 * same settings, the defaults again last to show the run's spread. Prints rows/s and CPU ms per row (this process + the dev server).
 *
 *   node -r ./test/harness/ts-register.js bench/tuning.ts [rows=1000] [maxInFlight=50]
 */
process.env.LOG_LEVEL ??= 'warn';

import type { WorkerOptions } from '@temporalio/worker';
import { runBatchBench, startBenchTemporal } from './batch';

const SETTINGS: [string, Partial<WorkerOptions>][] = [
  ['SDK defaults', {}],
  ['workflow cache 60 (just above the window)', { maxCachedWorkflows: 60 }],
  ['10 workflow tasks at once (default 40)', { maxConcurrentWorkflowTaskExecutions: 10 }],
  ['100 workflow tasks at once', { maxConcurrentWorkflowTaskExecutions: 100 }],
  ['20 local activities at once (default 100)', { maxConcurrentLocalActivityExecutions: 20 }],
  ['2 workflow task pollers (default 10)', { maxConcurrentWorkflowTaskPolls: 2 }],
  ['2 workflow threads (default 1)', { workflowThreadPoolSize: 2 }],
  ['no eager activities', { maxEagerActivityReservationsPerWorkflowTask: 0 }],
  ['SDK defaults, again', {}],
];

async function main(): Promise<void> {
  const [rowsArg, inFlightArg] = process.argv.slice(2);
  const rows = Number(rowsArg ?? 1000);
  const maxInFlight = Number(inFlightArg ?? 50);
  const lines: string[] = [];
  for (const [what, workerOverrides] of SETTINGS) {
    const temporal = await startBenchTemporal();
    try {
      const r = await runBatchBench({ rows, maxInFlight, serverPid: temporal.pid, workerOverrides });
      if (!r.ledgerExactlyOncePerRow) throw new Error(`${what}: not one ledger payout per row`);
      const line = `| ${what} | ${r.rowsPerSecond} | ${r.cpuMsPerRow} + ${r.devServerCpuMsPerRow} = ${r.cpuMsPerRow + r.devServerCpuMsPerRow} | ${r.peakRssMb} MB |`;
      console.log(line);
      lines.push(line);
    } finally {
      await temporal.stop();
    }
  }
  console.log(`\n${rows} rows, ${maxInFlight} in flight\n`);
  console.log('| worker setting | rows/s | CPU ms/row: process + Temporal | peak RSS |');
  console.log('| --- | ---: | --- | ---: |');
  for (const line of lines) console.log(line);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
