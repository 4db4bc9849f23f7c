/**
 * Does a batch's cost stay flat as it grows? (issue 12, `make test-large`): the same file shape at
 * 1 000 rows and then at N rows (default 10 000), each paid by a fresh `payrun worker` process on one
 * dev server, the way production runs. Prints rows/s and the worker's peak RSS for both, the RSS ratio,
 * the batch's continue-as-new count and last history size. Exits 1 when a row was not paid exactly once
 * or the worker's peak RSS grew by more than 10 % — memory must not depend on the batch's size. Rows/s
 * is printed, not judged: it depends on what else shares the machine.
 *
 *   node -r ./test/harness/ts-register.js bench/large.ts [rows=10000] [maxInFlight=default of payrun]
 */
process.env.LOG_LEVEL ??= 'warn';

import { DEFAULT_MAX_IN_FLIGHT } from '../workflows/contracts/batch';
import { runBatchBench, startBenchTemporal, type BatchBenchResult } from './batch';

const BASELINE_ROWS = 1_000;
const RSS_GROWTH_ALLOWED = 1.1;

async function main(): Promise<void> {
  const [rowsArg, inFlightArg] = process.argv.slice(2);
  const rows = Number(rowsArg ?? 10_000);
  const maxInFlight = Number(inFlightArg ?? DEFAULT_MAX_IN_FLIGHT);
  if (!Number.isInteger(rows) || rows <= BASELINE_ROWS)
    throw new Error(`rows: a whole number above ${BASELINE_ROWS}, not ${rowsArg}`);
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > 500)
    throw new Error(`maxInFlight: a whole number from 1 to 500, not ${inFlightArg}`);
  const temporal = await startBenchTemporal();
  const results: BatchBenchResult[] = [];
  try {
    for (const n of [BASELINE_ROWS, rows]) {
      const result = await runBatchBench({
        rows: n,
        maxInFlight,
        serverPid: temporal.pid,
        workerProcesses: 1,
      });
      console.log(JSON.stringify(result));
      results.push(result);
    }
  } finally {
    await temporal.stop();
  }
  const [small, large] = results as [BatchBenchResult, BatchBenchResult];
  const ratio = large.workerPeakRssMb! / small.workerPeakRssMb!;
  console.log(
    '\n| rows | in flight | rows/s | worker peak RSS | batch runs | last run: events, bytes | 1 payout/row |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | --- | --- |');
  for (const r of results)
    console.log(
      `| ${r.rows} | ${r.maxInFlight} | ${r.rowsPerSecond} | ${r.workerPeakRssMb} MB | ${r.batchRuns} | ` +
        `${r.lastRunHistoryLength}, ${r.lastRunHistoryBytes ?? '?'} | ${r.ledgerExactlyOncePerRow ? 'yes' : 'NO'} |`,
    );
  console.log(
    `\nworker peak RSS ${large.rows} ÷ ${small.rows} rows: ${ratio.toFixed(3)} (allowed ${RSS_GROWTH_ALLOWED})`,
  );
  const failures = [
    ...results
      .filter((r) => !r.ledgerExactlyOncePerRow)
      .map((r) => `${r.rows} rows: not one ledger payout per row`),
    ...(ratio > RSS_GROWTH_ALLOWED ? [`worker peak RSS grew ${ratio.toFixed(3)}×`] : []),
  ];
  if (failures.length) {
    console.error(`FAILED: ${failures.join('; ')}`);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
