import {
  patched,
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  sleep,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
// Workflow code may import @temporalio/common (bundled, deterministic); the error class lives there only.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  addToTally,
  childFailureOutcome,
  needsAttention,
  outcomeFromLookup,
  outcomeFromStatus,
} from './tally';
import type { BatchCarry } from './state';
import type { BatchChunkRow, BatchInFlightRow, BatchRowOutcome } from './contract';
import type { CancelCommand } from '../shared/operator-contract';
import {
  cancelSignal,
  payoutWorkflowId,
  reportToSignal,
  slotGrantedSignal,
  type PayoutOptions,
} from '../payout/contract';
import type { payoutWorkflow } from '../payout/workflow';
import { checkPayout, recordBatchResults } from './activities';

/** One loop grants woken rows their places (a second one could pass the same free place to two rows). */
const ONE_GRANT_LOOP = 'batch-one-grant-loop';

/**
 * How often a batch looks up payouts it waits for without being their parent, in case one never
 * reports (terminated by hand). Reports normally come at once; this is the safety net.
 */
const UNREPORTED_RECHECK_MS = 5 * 60_000;

interface InFlight extends BatchInFlightRow {
  /** startChild not answered yet: it cannot be signalled, and continue-as-new waits for it. */
  starting: boolean;
  /** This run is not the payout's parent: it waits for the payout's report. */
  foreign?: boolean;
}

/**
 * The batch's sliding window of payouts: the rows in flight (a child payout each, or a payout this run
 * waits for without being its parent), their outcomes tallied and written to the batch store in groups.
 * BatchRun (workflows/batch/run.ts) decides when a row may start; this starts it and settles it.
 */
export class BatchWindow {
  readonly inFlight = new Map<string, InFlight>();
  /** Outcomes not yet written to the batch store. */
  readonly buffer: BatchRowOutcome[] = [];
  /** The first error a row's own code threw (not a payout's failure, which is the row's outcome). */
  rowError: unknown;
  /** Payouts that reported they settled: the batch reads their record next. */
  private readonly reported = new Set<string>();
  private recheckTick = 0;
  private rechecking = false;
  /** Scheduled rows asleep (they hold no place), and those that woke and wait for one, in order. */
  private asleep = 0;
  private readonly waking: string[] = [];
  private granting = false;
  private maxInFlight = Infinity;

  constructor(
    private readonly batchId: string,
    private readonly carry: BatchCarry,
    private readonly payoutOptions: PayoutOptions & { requireApproval: false },
    /** The batch's cancel command, once there is one: every payout it starts after that is cancelled. */
    private readonly cancelRequest: () => CancelCommand | undefined,
  ) {}

  /** Rows the last run left in flight: this run is not their parent, it waits for their reports. */
  resumeCarried(): void {
    for (const row of this.carry.inFlight) {
      if (row.asleep) this.asleep++;
      this.launch(row, false, (f) => this.awaitExisting(f));
    }
    this.carry.inFlight = [];
    this.buffer.push(...(this.carry.unflushed ?? []));
    delete this.carry.unflushed;
  }

  /** Rows asleep until their pay_on day: in flight, holding no place. */
  get sleeping(): number {
    return this.asleep;
  }

  /** Another row may start: the batch is not paused and the window has room (sleeping rows take none). */
  hasRoom(maxInFlight: number): boolean {
    return !this.carry.paused && this.inFlight.size - this.asleep < maxInFlight;
  }

  /** The in-flight limit woken rows are admitted under (BatchRun's). */
  limitTo(maxInFlight: number): void {
    this.maxInFlight = maxInFlight;
  }

  /** payoutSleepSignal: a scheduled row fell asleep (frees its place) or woke (waits for one). */
  payoutSleep(s: { reference: string; asleep: boolean } | undefined): void {
    const f = typeof s?.reference === 'string' ? this.inFlight.get(s.reference) : undefined;
    if (!f || typeof s?.asleep !== 'boolean') return;
    if (s.asleep && !f.asleep) {
      f.asleep = true;
      this.asleep++;
    } else if (!s.asleep && f.asleep && !this.waking.includes(f.reference)) {
      this.waking.push(f.reference);
      // Batches that started a second loop before the fix replay as they ran (the patch's marker is absent).
      if (this.waking.length === 1 && (!this.granting || !patched(ONE_GRANT_LOOP))) void this.grantSlots();
    }
  }

  /**
   * Admits woken rows one at a time as places free. Only one of these runs: a second, started while the
   * first awaited its signal, would pass the same free place to two rows.
   */
  private async grantSlots(): Promise<void> {
    this.granting = true;
    try {
      while (this.waking.length > 0) {
        await condition(() => this.hasRoom(this.maxInFlight));
        const reference = this.waking.shift()!;
        const f = this.inFlight.get(reference);
        if (!f?.asleep) continue;
        f.asleep = false;
        this.asleep--;
        await getExternalWorkflowHandle(payoutWorkflowId(reference))
          .signal(slotGrantedSignal)
          .catch(() => undefined); // it has ended meanwhile (cancelled): its place frees as it settles
      }
    } finally {
      this.granting = false;
    }
  }

  allStarted(): boolean {
    return [...this.inFlight.values()].every((f) => !f.starting);
  }

  /** What continue-as-new carries of the rows in flight. */
  carried(): BatchInFlightRow[] {
    return [...this.inFlight.values()].map(({ starting: _, foreign: __, ...row }) => row);
  }

  /** Cancels every payout that has started (one still starting is cancelled once it has). */
  cancelStarted(): void {
    for (const f of this.inFlight.values()) if (!f.starting) this.sendCancel(f.reference);
  }

  /** The payoutSettled signal: only a nudge to read the payout's record, so anything else is dropped. */
  payoutSettled(report: { reference: string } | undefined): void {
    if (typeof report?.reference === 'string' && this.inFlight.has(report.reference))
      this.reported.add(report.reference);
  }

  async flush(): Promise<void> {
    if (this.buffer.length > 0)
      await recordBatchResults({ batchId: this.batchId, outcomes: this.buffer.splice(0) });
  }

  dispatch(r: BatchChunkRow): void {
    const { request } = r;
    const payee = { taxReference: request.recipient.taxReference, method: request.method };
    const row = { row: r.row, reference: request.reference, amount: request.amount, payee };
    this.carry.dispatched++;
    this.carry.dispatchedKopecks += row.amount;
    const kind = r.existing?.kind ?? 'none';
    if (kind === 'paid') this.settle(outcomeFromLookup(row, r.existing!, this.batchId)!);
    else if (kind === 'running') this.launch(row, false, (f) => this.awaitExisting(f));
    // none, an earlier run that moved no money, or one in doubt: a new run settles earlier ones with the bank first.
    else this.launch(row, true, (f) => this.pay(f, request));
  }

  private settle(o: BatchRowOutcome): void {
    addToTally(this.carry.tally, o);
    this.buffer.push(o);
  }

  private sendCancel(reference: string): void {
    const cancelReq = this.cancelRequest()!;
    const reason = `batch ${this.batchId} cancelled${cancelReq.reason ? `: ${cancelReq.reason}` : ''}`;
    getExternalWorkflowHandle(payoutWorkflowId(reference))
      .signal(cancelSignal, { by: cancelReq.by, reason })
      .catch(() => undefined); // it has already ended: nothing left to cancel
  }

  private launch(
    row: BatchInFlightRow,
    starting: boolean,
    work: (f: InFlight) => Promise<BatchRowOutcome>,
  ): void {
    const f: InFlight = { ...row, starting };
    this.inFlight.set(row.reference, f);
    work(f).then(
      (o) => {
        if (this.inFlight.get(row.reference)?.asleep) this.asleep--;
        this.inFlight.delete(row.reference);
        this.settle(o);
      },
      (err: unknown) => {
        this.rowError ??= err;
      },
    );
  }

  /**
   * A payout this run is not the parent of (started by the previous run, or by someone else): it is
   * asked to report when settled; a report, or the periodic safety-net tick, makes the batch read the
   * server's record of it. No activity per row polls while it waits.
   */
  private async awaitExisting(f: InFlight): Promise<BatchRowOutcome> {
    f.foreign = true;
    const workflowId = payoutWorkflowId(f.reference);
    // Fails only if the payout has already closed, which the look-up below then reads.
    await getExternalWorkflowHandle(workflowId)
      .signal(reportToSignal, { batchId: this.batchId })
      .catch(() => undefined);
    this.startRecheckTicks();
    for (;;) {
      const lookup = await checkPayout({ workflowId });
      if (lookup.kind !== 'running')
        return (
          outcomeFromLookup(f, lookup, this.batchId) ??
          needsAttention(f, 'missing', 'the payout workflow vanished')
        );
      const tick = this.recheckTick;
      await condition(() => this.reported.has(f.reference) || this.recheckTick !== tick);
      this.reported.delete(f.reference);
    }
  }

  private startRecheckTicks(): void {
    if (this.rechecking) return;
    this.rechecking = true;
    void (async () => {
      while ([...this.inFlight.values()].some((f) => f.foreign)) {
        await sleep(UNREPORTED_RECHECK_MS);
        this.recheckTick++;
      }
      this.rechecking = false;
    })();
  }

  private async pay(f: InFlight, request: BatchChunkRow['request']): Promise<BatchRowOutcome> {
    let child;
    try {
      child = await startChild<typeof payoutWorkflow>('payoutWorkflow', {
        workflowId: payoutWorkflowId(f.reference),
        args: [
          { request, batchId: this.batchId, options: { ...this.payoutOptions, confirmWithCheck: true } },
        ],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      });
    } catch (err) {
      // Started meanwhile by someone else (another batch with the same reference): its outcome is the row's.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      f.starting = false;
      return this.awaitExisting(f);
    }
    f.starting = false;
    if (this.cancelRequest()) this.sendCancel(f.reference);
    const result = child.result();
    if (this.payoutOptions.awaitCreditConfirmation) {
      // The payout reports when its money is settled; its slot frees then, not when the optional credit
      // confirmation arrives days later (the row's state is then what the payout was at settlement).
      let closed = false;
      void result.then(
        () => (closed = true),
        () => (closed = true),
      );
      await condition(() => closed || this.reported.has(f.reference));
      if (!closed) {
        const lookup = await checkPayout({ workflowId: payoutWorkflowId(f.reference) });
        if (lookup.kind === 'paid') return outcomeFromLookup(f, lookup, this.batchId)!;
      }
    }
    try {
      return outcomeFromStatus(f, await result, this.batchId);
    } catch (err) {
      return childFailureOutcome(f, err, this.batchId);
    }
  }
}
