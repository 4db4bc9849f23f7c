/**
 * An N-row batch end to end against the bank sandbox: the real batch workflow, child payouts,
 * webhooks through the ingress, an in-process worker. Prints rows/s, peak RSS of this process
 * (worker + sandbox + ingress), time to first payout, and checks one ledger payout per row.
 *
 *   node -r ./test/harness/ts-register.js bench/batch.ts [rows=1000] [maxInFlight=50]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../src/devserver';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
} from '../test/harness/batches';

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 1000);
  const maxInFlight = Number(process.argv[3] ?? 50);
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-'));
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.db'),
    logFile: join(dir, 'temporal.log'),
  });
  process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = server.address;
  const { startStack } = await import('../test/harness/stack');
  const stack = await startStack();
  const paths = batchTestPaths();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    const p = uniquePrefix();
    const references = Array.from({ length: rows }, (_, i) => `${p}-${String(i).padStart(6, '0')}`);
    // Half self-employed (one taxpayer check, then its cached verdict), half plain payouts.
    const bytes = batchCsv(references.map((reference, i) => ({ reference, selfEmployed: i % 2 === 0 })));
    const started = Date.now();
    const r = await dropAndSubmit(stack, paths, `bench-${rows}.csv`, bytes, {
      batchOptions: { maxInFlight, payout: { pollAfterMs: 10_000 } },
    });
    const submittedMs = Date.now() - started;
    let firstPayoutMs: number | undefined;
    const watch = setInterval(() => {
      if (firstPayoutMs === undefined && stack.sandbox.ledger().some((e) => e.kind === 'payout'))
        firstPayoutMs = Date.now() - started;
    }, 50);
    const result = await batchHandle(stack, r.batchId).result();
    const totalMs = Date.now() - started;
    clearInterval(watch);
    const paid = [...ledgerPayouts(stack, references).values()];
    const exactlyOnce = paid.every((n) => n === 1);
    const history = await batchHandle(stack, r.batchId).describe();
    console.log(
      JSON.stringify({
        rows,
        maxInFlight,
        submitMs: submittedMs,
        firstPayoutMs,
        totalMs,
        rowsPerSecond: Math.round((rows / totalMs) * 10_000) / 10,
        peakRssMb: Math.round(peakRss / 1_048_576),
        counts: result.counts,
        ledgerExactlyOncePerRow: exactlyOnce,
        lastRunHistoryLength: history.historyLength,
      }),
    );
  } finally {
    clearInterval(sampler);
    await stack.stop();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
