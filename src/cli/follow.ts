import type { Client } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import { formatRubles } from '../money';
import type { batchWorkflow } from '../../workflows/batch';
import { batchProgressQuery, type BatchProgress, type BatchResult } from '../../workflows/contracts/batch';

/** One line per state: count and rubles. */
export function describeCounts(counts: Record<string, number>, amounts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([s, n]) => `${s} ${n} (${formatRubles(amounts[s] ?? 0)} RUB)`);
  return parts.length ? parts.join(', ') : 'nothing finished yet';
}

export function describeProgress(p: BatchProgress): string[] {
  const lines = [
    `${p.batchId}: ${p.phase}${p.fileName ? ` — ${p.fileName}` : ''}`,
    `rows ${p.rows} valid (${formatRubles(p.totalKopecks)} RUB), ${p.invalidRows} invalid; started ${p.dispatched}, in flight ${p.inFlight}, finished ${p.finished}`,
    `  ${describeCounts(p.counts, p.amounts)}`,
  ];
  if (p.approval?.required)
    lines.push(
      `approval: ${p.approval.by ? `given by ${p.approval.by} at ${p.approval.at}` : 'waiting (payrun batch approve ID)'}`,
    );
  if (p.funds)
    lines.push(
      `deposit ${formatRubles(p.funds.balanceKopecks ?? 0)} RUB for ${formatRubles(p.funds.neededKopecks)} RUB to pay (checked ${p.funds.checkedAt})`,
    );
  for (const f of p.failures.slice(0, 10))
    lines.push(
      `  row ${f.row} ${f.reference}: ${f.state}${f.code ? ` ${f.code}` : ''}${f.reason ? ` — ${f.reason}` : ''}`,
    );
  if (p.failureCount > 10) lines.push(`  … ${p.failureCount - 10} more in the report`);
  if (p.final) lines.push(`report ${p.final.reportPath}`, `summary ${p.final.summaryPath}`);
  return lines;
}

/** A live progress bar until the batch is done; then its result. */
export async function followBatch(client: Client, batchId: string, pollMs = 1_000): Promise<BatchResult> {
  const handle = client.workflow.getHandle<typeof batchWorkflow>(batchId);
  const bar = new SingleBar({
    format: ' {bar} {value}/{total} rows | {phase} | {counts}',
    hideCursor: true,
    clearOnComplete: false,
  });
  let started = false;
  const result = handle.result();
  let done = false;
  void result.finally(() => (done = true)).catch(() => undefined);
  try {
    while (!done) {
      const p = await handle.query(batchProgressQuery).catch(() => undefined);
      if (p) {
        const payload = { phase: p.phase, counts: describeCounts(p.counts, p.amounts) };
        if (!started) bar.start(Math.max(p.rows, 1), p.finished, payload);
        else bar.update(p.finished, payload);
        bar.setTotal(Math.max(p.rows, 1));
        started = true;
      }
      await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, pollMs))]);
    }
    const r = await result;
    if (started)
      bar.update(
        Object.values(r.counts).reduce((a, b) => a + b, 0),
        { phase: 'done', counts: describeCounts(r.counts, r.amounts) },
      );
    return r;
  } finally {
    if (started) bar.stop();
  }
}
