/**
 * Does a worker's memory depend on a batch's size? (issue 12, `make test-large`): one `payrun worker`
 * process pays a warm-up batch of 3 000 rows, then 1 000 rows, then N rows (default 10 000), the file
 * shape of bench/batch.ts, on one dev server. The warm-up matters: a fresh process's V8 heaps grow for
 * the first minutes of sustained work and then level off, so a cold 1 000-row batch (~35 s) ends before
 * the worker reaches the size it keeps, and comparing it with a cold 10 000-row batch measured warm-up,
 * not batch size (625 against 878 MB when first measured; the 100 000-row run levels off at ~800–870 MB).
 * Prints rows/s, the worker's peak RSS during each batch, the batch's continue-as-new count and last
 * history size. Exits 1 when a row was not paid exactly once or the worker's peak RSS during the N-row
 * batch is more than 10 % above the 1 000-row batch's. Rows/s is printed, not judged: it depends on
 * what else shares the machine.
 *
 *   node -r ./test/harness/ts-register.js bench/large.ts [rows=10000] [maxInFlight=default of payrun]
 */
process.env.LOG_LEVEL ??= 'warn';

import { DEFAULT_MAX_IN_FLIGHT } from '../workflows/batch/contract';
import { runBatchSequence, startBenchTemporal, type BatchBenchResult } from './batch';

const WARM_UP_ROWS = 3_000;
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
  let results: BatchBenchResult[];
  try {
    results = await runBatchSequence({ rows, maxInFlight, serverPid: temporal.pid, workerProcesses: 1 }, [
      WARM_UP_ROWS,
      BASELINE_ROWS,
      rows,
    ]);
  } finally {
    await temporal.stop();
  }
  for (const r of results) console.log(JSON.stringify(r));
  const [, small, large] = results as [BatchBenchResult, BatchBenchResult, BatchBenchResult];
  const ratio = large.workerPeakRssMb! / small.workerPeakRssMb!;
  console.log(
    '\n| rows (one worker, in this order) | in flight | rows/s | worker peak RSS during the batch | batch runs | last run: events, bytes | 1 payout/row |',
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
