import { Counter, Histogram, Registry } from 'prom-client';
import type { BatchRowState } from '../../workflows/batch/contract';
import { registerReconciliationMetrics } from './reconciliation';
import { registerEventMetrics } from './events';

/**
 * How a payout run or a batch row can end. A Record, not an array: the compiler insists every state is
 * listed, so a new state gets its zero series. A payout run refused because an earlier run of its
 * reference paid ends `already_paid` or `reference_conflict`, the same names its batch row gets.
 */
const ENDINGS: Record<BatchRowState, true> = {
  succeeded: true,
  credited: true,
  returned: true,
  failed: true,
  rejected: true,
  expired: true,
  cancelled: true,
  needs_attention: true,
  limit_exceeded: true,
  already_paid: true,
  reference_conflict: true,
};

/**
 * Keys of outcomes already counted (a payout's run id; a batch's run and activity id), newest last. A
 * workflow task that fails after a payout's ending is known runs again from the start, and the sink fires
 * again for the same run; an activity retried after its completion was lost records its rows again. A
 * retry comes within seconds to minutes, long before this many other outcomes; the Set is a few megabytes.
 */
const COUNTED_KEYS_KEPT = 50_000;

/** Bank calls take/** Bank calls take tens of milliseconds on a good day; the bank's own timeout is 30 s. */
const BANK_BUCKETS_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * payrun's own worker metrics (the Temporal SDK's are exported by its Runtime, src/worker/runtime.ts).
 * A registry per instance so a test process can run several workers, each counting its own.
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly payouts = new Counter({
    name: 'payrun_payouts_finished_total',
    help: 'Payout workflow runs that ended on this worker, by final state (paid or the ending they failed with).',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly rows = new Counter({
    name: 'payrun_batch_rows_total',
    help: 'Batch rows whose outcome a batch recorded in its store, by row state.',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly bankDuration = new Histogram({
    name: 'payrun_bank_call_duration_seconds',
    help: 'Bank API calls made by activities, from call to answer or error, by client method.',
    labelNames: ['method'] as const,
    buckets: BANK_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  private readonly reportsFailed = new Counter({
    name: 'payrun_batch_reports_failed_total',
    help: 'Batches whose report could not be written and that failed for it (BatchReportFailed): the file stays in processing/.',
    registers: [this.registry],
  });
  private readonly returned = new Counter({
    name: 'payrun_payouts_returned_total',
    help: "Paid payouts the recipient's bank sent back, marked returned by their return workflow (once per payout).",
    registers: [this.registry],
  });
  private readonly bankErrors = new Counter({
    name: 'payrun_bank_call_errors_total',
    help: "Bank API calls that failed, by client method and the bank's (or the client's) error code.",
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  private readonly counted = new Set<string>();
  /** The event outbox's delivery per endpoint (src/metrics/events.ts). */
  readonly events = registerEventMetrics(this.registry);

  constructor() {
    registerReconciliationMetrics(this.registry);
    this.reportsFailed.inc(0);
    this.returned.inc(0);
    for (const state of Object.keys(ENDINGS)) {
      this.payouts.inc({ state }, 0);
      this.rows.inc({ state }, 0);
    }
  }

  /** One payout run's ending; a second call for the same run (a retried workflow task) counts nothing. */
  payoutFinished(state: string, runId: string): void {
    if (this.firstTime(`payout/${runId}`)) this.payouts.inc({ state });
  }

  /** Rows a batch recorded; `key` names the recording, so a retried one (same key) counts nothing. */
  batchRows(states: readonly string[], key?: string): void {
    if (key !== undefined && !this.firstTime(`rows/${key}`)) return;
    for (const state of states) this.rows.inc({ state });
  }

  private firstTime(key: string): boolean {
    if (this.counted.has(key)) return false;
    this.counted.add(key);
    if (this.counted.size > COUNTED_KEYS_KEPT)
      this.counted.delete(this.counted.values().next().value as string);
    return true;
  }

  /** A payout's row marked returned (the activity counts only the write that changed it). */
  payoutReturned(): void {
    this.returned.inc();
  }

  batchReportFailed(): void {
    this.reportsFailed.inc();
  }

  /** One finished bank call; `errorCode` when it failed. */
  bankCall(method: string, seconds: number, errorCode?: string): void {
    this.bankDuration.observe({ method }, seconds);
    if (errorCode !== undefined) this.bankErrors.inc({ method, code: errorCode });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
