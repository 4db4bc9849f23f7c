/**
 * An N-row batch end to end against the bank sandbox: the real batch workflow, child payouts,
 * webhooks through the ingress, an in-process worker. Prints rows/s, peak RSS of this process
 * (worker + sandbox + ingress), time to first payout, and checks one ledger payout per row.
 *
 *   node -r ./test/harness/ts-register.js bench/batch.ts [rows=1000] [maxInFlight=50] [--no-codec]
 *
 * Also prints CPU seconds per row: this process (worker, sandbox, ingress) and the dev server.
 * `--no-codec` runs Temporal payloads unencrypted (the baseline that prices the codec); the batch
 * store stays encrypted either way.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
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

/** utime + stime of another process in seconds (Linux /proc; 0 where there is none). */
function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks; 100 Hz on Linux
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const codec = !args.includes('--no-codec');
  const [rowsArg, inFlightArg] = args.filter((a) => !a.startsWith('--'));
  const rows = Number(rowsArg ?? 1000);
  const maxInFlight = Number(inFlightArg ?? 50);
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-'));
  // A throwaway key: encryption costs the same whatever the key.
  process.env.PAYRUN_PAYLOAD_KEYS = `bench:${randomBytes(32).toString('base64')}`;
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.db'),
    logFile: join(dir, 'temporal.log'),
  });
  process.env.PAYRUN_TEST_TEMPORAL_ADDRESS = server.address;
  const { startStack } = await import('../test/harness/stack');
  const stack = await startStack(codec ? {} : { dataConverterOverride: {} });
  const paths = batchTestPaths();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    const p = uniquePrefix();
    const references = Array.from({ length: rows }, (_, i) => `${p}-${String(i).padStart(6, '0')}`);
    // Half self-employed (one taxpayer check, then its cached verdict), half plain payouts.
    const bytes = batchCsv(references.map((reference, i) => ({ reference, selfEmployed: i % 2 === 0 })));
    const started = Date.now();
    const cpuStart = process.cpuUsage();
    const serverCpuStart = processCpuSeconds(server.pid);
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
    const cpu = process.cpuUsage(cpuStart);
    const processCpuS = (cpu.user + cpu.system) / 1e6;
    const serverCpuS = processCpuSeconds(server.pid) - serverCpuStart;
    clearInterval(watch);
    const paid = [...ledgerPayouts(stack, references).values()];
    const exactlyOnce = paid.every((n) => n === 1);
    const history = await batchHandle(stack, r.batchId).describe();
    console.log(
      JSON.stringify({
        rows,
        maxInFlight,
        codec,
        submitMs: submittedMs,
        firstPayoutMs,
        totalMs,
        rowsPerSecond: Math.round((rows / totalMs) * 10_000) / 10,
        peakRssMb: Math.round(peakRss / 1_048_576),
        cpuMsPerRow: Math.round((processCpuS * 1000) / rows),
        devServerCpuMsPerRow: Math.round((serverCpuS * 1000) / rows),
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
