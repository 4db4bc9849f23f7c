import type { Client } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import type { AmountRow } from '../batch/commands/amounts';
import { holdReason } from '../i18n/operator-answers';
import { failureReason } from '../i18n/row-reasons';
import { currentLang, shownState, stateLine, t, type StateFacts } from '../i18n';
import { approvalsCount } from '../i18n/batch-state';
import { untilEngineAnswers, type EngineWaitOptions } from './engine-wait';
import type { batchWorkflow } from '../../workflows/batch/workflow';
import { batchProgressQuery, type BatchProgress, type BatchResult } from '../../workflows/batch/contract';

/** One line per state: count and roubles, in the language set (PAYRUN_LANG). */
export function describeCounts(counts: Record<string, number>, amounts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([state, count]) =>
    t('summary.part', { state, part: { count, kopecks: amounts[state] ?? 0, unreadable: 0 } }),
  );
  return parts.length ? parts.join(', ') : t('status.nothing_finished');
}

/** Failures `batch status` lists; the rest are counted. */
const FAILURES_SHOWN = 10;
/** Rows named when a batch waits for funds. */
export const LARGEST_SHOWN = 5;

export interface DescribeOptions {
  /** The largest rows of a batch waiting for funds (largestStoredRows, from the batch store); none when absent. */
  largestRows?: AmountRow[];
}

/** What `batch status` judges the shown state from (src/i18n/batch-state.ts). */
function progressFacts(p: BatchProgress): StateFacts {
  return {
    phase: p.phase,
    ...(p.approval ? { approval: p.approval } : {}),
    ...(p.commands ? { commands: p.commands } : {}),
    ...(p.final?.cancelled ? { cancelled: true } : {}),
  };
}

export function describeProgress(p: BatchProgress, opts: DescribeOptions = {}): string[] {
  const lines = [
    t('status.head', {
      batchId: p.batchId,
      phase: t('batchState.name', { state: shownState(progressFacts(p)) }),
      ...(p.fileName ? { file: p.fileName } : {}),
    }),
    t('status.rows', {
      rows: p.rows,
      total: p.totalKopecks,
      invalid: p.invalidRows,
      dispatched: p.dispatched,
      inFlight: p.inFlight,
      ...(p.scheduled ? { scheduled: p.scheduled } : {}),
      finished: p.finished,
    }),
    `  ${describeCounts(p.counts, p.amounts)}`,
  ];
  if (p.approval?.required)
    lines.push(
      p.approval.by && p.approval.at
        ? t('status.approval_given', { by: p.approval.by, at: p.approval.at })
        : t('status.approval_waiting', approvalsCount(progressFacts(p))),
    );
  const held = p.phase === 'awaiting_approval' ? holdReason(p.approval?.because) : undefined;
  if (held) lines.push(held);
  if (p.funds) {
    const balance = p.funds.balanceKopecks ?? 0;
    lines.push(
      t('status.funds', {
        balance,
        needed: p.funds.neededKopecks,
        ...(p.funds.checkedAt ? { checkedAt: p.funds.checkedAt } : {}),
      }),
    );
    if (p.phase === 'awaiting_funds' && p.funds.neededKopecks > balance) {
      lines.push(`  ${t('status.shortfall', { short: p.funds.neededKopecks - balance })}`);
      const largest = opts.largestRows ?? [];
      if (largest.length > 0) lines.push(`  ${t('status.largest', { rows: largest })}`);
    }
  }
  // The workflow keeps the first failures to end, in the order they ended: shown in row order.
  const shown = [...p.failures].sort((a, b) => a.row - b.row).slice(0, FAILURES_SHOWN);
  for (const f of shown) {
    const reason = failureReason(f);
    lines.push(
      `  ${t('status.failure', { row: f.row, reference: f.reference, state: f.state, ...(f.code ? { code: f.code } : {}), ...(reason ? { reason } : {}) })}`,
    );
  }
  // Everything not listed that the report lists as not paid: failures beyond those shown, and invalid rows.
  const moreFailures = p.failureCount - shown.length;
  if (moreFailures > 0 || (p.invalidRows > 0 && shown.length > 0))
    lines.push(`  ${t('status.more', { failures: moreFailures, invalid: p.invalidRows })}`);
  if (p.final)
    lines.push(
      ...t('status.report', { report: p.final.reportPath, summary: p.final.summaryPath }).split('\n'),
    );
  return lines;
}

/**
 * A live progress bar until the batch is done; then its result. A Temporal that stops answering (down,
 * restarting) is waited out, saying so on stderr (src/cli/engine-wait.ts): the batch goes on without us.
 */
export async function followBatch(
  client: Client,
  batchId: string,
  pollMs = 1_000,
  wait: EngineWaitOptions = {},
): Promise<BatchResult> {
  const handle = client.workflow.getHandle<typeof batchWorkflow>(batchId);
  const bar = new SingleBar({
    format: t('follow.bar'),
    hideCursor: true,
    clearOnComplete: false,
  });
  let started = false;
  // The result is a long poll that fails when the server goes away: asked again until it answers.
  const result = untilEngineAnswers(() => handle.result(), wait);
  let done = false;
  void result.finally(() => (done = true)).catch(() => undefined);
  try {
    while (!done) {
      const p = await handle.query(batchProgressQuery).catch(() => undefined);
      if (p) {
        const payload = {
          phase: stateLine(progressFacts(p), currentLang()),
          counts: describeCounts(p.counts, p.amounts),
        };
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
        { phase: t('batch.phase', { phase: 'done' }), counts: describeCounts(r.counts, r.amounts) },
      );
    return r;
  } finally {
    if (started) bar.stop();
  }
}
