import {
  condition,
  continueAsNew,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { finishedCount } from './tally';
import {
  batchPhase,
  cancelNeverStarted,
  freshCarry,
  nextRunCarry,
  type BatchCarry,
  type BatchStage,
} from './state';
import { BatchWindow } from './window';
import { checkBatchDecision, parseSignedStatement, rememberSubmitters } from '../shared/approval';
import type { BatchAuthorization, BatchStatement, SignedStatement } from '../shared/approval-contract';
import {
  DEFAULT_MAX_IN_FLIGHT,
  type BatchCommandRecord,
  type BatchFinal,
  type BatchPhase,
  type BatchProgress,
  type BatchResult,
  type BatchWorkflowInput,
} from './contract';
import type { CancelCommand } from '../shared/operator-contract';
import { BATCH_ID, STATE } from '../shared/search-attributes';
import { iso, workflowNow } from '../shared/time';

import {
  authorizeBatch,
  checkDeposit,
  finishBatch,
  loadBatchChunk,
  openBatch,
  recordBatchDecision,
} from './activities';

/** Batches started before the window had one default (20 in the workflow, 100 in the CLI) still replay so. */
const ONE_MAX_IN_FLIGHT_DEFAULT = 'one-max-in-flight-default';

const DEFAULTS = {
  requireApproval: false,
  checkFunds: true,
  fundsRecheckMs: 60_000,
  continueAsNewAfterEvents: 10_000,
};
/** Row outcomes go to the batch store in groups this size (and before continue-as-new and the report). */
const FLUSH_AT = 100;
/** Operator commands kept for the audit trail (the approvals themselves live in the batch store). */
const COMMANDS_KEPT = 200;
/** Malformed or refused signals the progress query shows, newest last. */
const NOTES_KEPT = 20;

/** The workflow function's type, for continue-as-new (only the batch itself passes `carry`). */
type BatchWorkflowFn = (input: BatchWorkflowInput<BatchCarry>) => Promise<BatchResult>;

/**
 * One run of a batch; batchWorkflow (workflows/batch/workflow.ts) wires the handlers to it. The steps: the file
 * opened → who may pay asked of the worker (and approvals awaited) → the deposit compared with what is
 * left to pay → the rows paid chunk by chunk through a sliding window (workflows/batch/window.ts),
 * continuing as new when the history grows → the report. docs/batches.md describes it.
 */
export class BatchRun {
  readonly batchId: string;
  readonly carry: BatchCarry;
  readonly window: BatchWindow;
  private readonly opts: typeof DEFAULTS & { maxInFlight: number } & NonNullable<
      BatchWorkflowInput['options']
    >;
  private stage: BatchStage = 'paying';
  private cancelRequest?: CancelCommand;
  private funds: BatchProgress['funds'];
  private final?: BatchFinal;
  /** Who may pay, as the worker last judged the file's record under its policy; unset until it has read it. */
  private auth?: BatchAuthorization;
  private fundsChanged = false;
  /** The file's record changed outside a decision (a resubmission): judge it again while waiting. */
  private recordChanged = false;
  /** Signals (Temporal UI's "Send signal") are noted and ignored when malformed, never thrown on. */
  private readonly ignoredSignals: string[] = [];

  constructor(private readonly input: BatchWorkflowInput<BatchCarry>) {
    this.batchId = input.batchId;
    const maxInFlight = patched(ONE_MAX_IN_FLIGHT_DEFAULT) ? DEFAULT_MAX_IN_FLIGHT : 20;
    this.opts = { ...DEFAULTS, maxInFlight, ...input.options };
    this.carry = input.carry ?? freshCarry(this.opts.checkFunds);
    const payoutOptions = { ...this.opts.payout, requireApproval: false as const };
    this.window = new BatchWindow(this.batchId, this.carry, payoutOptions, () => this.cancelRequest);
    this.window.limitTo(this.opts.maxInFlight);
  }

  /**
   * The steps in order. Every wait is awaited here, not in a step method of its own: an extra async
   * layer would run what follows a wait a microtask later, which can reorder commands within a
   * workflow task against the rows' own coroutines, and recorded histories must replay unchanged.
   */
  async run(): Promise<BatchResult> {
    const { batchId, carry, window } = this;
    if (!this.input.carry) {
      upsertSearchAttributes([{ key: BATCH_ID, value: batchId }]);
      carry.meta = await openBatch({ batchId });
    }
    window.resumeCarried();

    // Every run asks, a hand-restarted one too: what the file's record requires, the input cannot lower.
    const requested = this.opts.requireApproval;
    this.auth = this.remember(
      await authorizeBatch({ batchId, requested, ignoreAge: carry.approval !== undefined }),
    );
    if (this.mustAwaitApproval())
      // A resubmission nudges a waiting batch (recordChanged): the worker judges its record again. Without
      // the nudge this is the one wait it always was, so recorded histories replay unchanged.
      while (!(this.auth!.satisfied || this.cancelled)) {
        await condition(() => this.auth!.satisfied || this.cancelled || this.recordChanged);
        if (!this.recordChanged) continue;
        this.recordChanged = false;
        this.auth = this.remember(await authorizeBatch({ batchId, requested }));
      }
    this.notePayingAllowed();
    while (!carry.fundsOk && !this.cancelled) {
      const neededKopecks = carry.meta.totalKopecks - carry.dispatchedKopecks;
      const { balanceKopecks } = await checkDeposit();
      if (this.fundsSuffice(neededKopecks, balanceKopecks)) continue;
      // The ingress signals fundsChanged when a nominal_topup arrives; the timer covers lost ones.
      await condition(() => this.cancelled || this.fundsChanged, this.opts.fundsRecheckMs);
      this.fundsChanged = false;
    }
    this.enterStage('paying');

    while (!this.cancelled && carry.nextChunk < carry.meta.chunkCount) {
      const rows = await loadBatchChunk({ batchId, index: carry.nextChunk });
      for (const r of rows) {
        await condition(
          () => this.cancelled || window.rowError !== undefined || window.hasRoom(this.opts.maxInFlight),
        );
        if (window.rowError !== undefined) throw window.rowError;
        if (this.cancelled) break;
        window.dispatch(r);
        if (window.buffer.length >= FLUSH_AT) await window.flush();
      }
      if (this.cancelled) break;
      carry.nextChunk++;
      if (this.historyFull() && carry.nextChunk < carry.meta.chunkCount) {
        await condition(() => window.allStarted());
        await window.flush();
        const next = nextRunCarry(carry, window.carried(), window.buffer.splice(0));
        return continueAsNew<BatchWorkflowFn>({ ...this.input, carry: next });
      }
    }

    await condition(() => window.inFlight.size === 0 || window.rowError !== undefined);
    if (window.rowError !== undefined) throw window.rowError;
    if (this.cancelled) cancelNeverStarted(carry);
    await window.flush();
    this.final = await finishBatch({ batchId, cancelled: this.cancelled });
    return { batchId, counts: carry.tally.counts, amounts: carry.tally.amounts, ...this.final };
  }

  // ─── Steps (synchronous: the waits are run()'s) ─────────────────────────────────────────────────

  private get cancelled(): boolean {
    return this.cancelRequest !== undefined;
  }

  /** Paying is not allowed (yet): the batch waits for approvals, forgetting an approval that lapsed. */
  private mustAwaitApproval(): boolean {
    if (this.auth!.satisfied || this.cancelled) return false;
    if (this.carry.approval)
      this.noteIgnored(
        `paying was allowed (${this.carry.approval.by}) and no longer is: ${this.auth!.because}`,
      );
    this.carry.approval = undefined;
    this.stage = 'approval';
    upsertSearchAttributes([{ key: STATE, value: 'awaiting_approval' }]);
    return true;
  }

  /**
   * The worker's judgment with every submitter this batch has ever seen, kept in the carry: a submit line
   * removed from the record does not make its person an approver (the validators refuse them).
   */
  private remember(auth: BatchAuthorization): BatchAuthorization {
    const { carry, input } = this;
    const known = [...(carry.submittedBy ?? []), ...(input.submitter ? [input.submitter] : [])];
    const judged = rememberSubmitters(auth, known);
    if (judged.submittedBy?.length) carry.submittedBy = judged.submittedBy;
    return judged;
  }

  private notePayingAllowed(): void {
    if (this.cancelled || this.carry.approval) return;
    const auth = this.auth!;
    const by =
      auth.required || auth.approvedBy.length > 0
        ? auth.approvedBy.join(', ')
        : `nobody needed: ${auth.because}`;
    this.carry.approval = { by, at: iso() };
  }

  /** The deposit against what is left to pay: enough, or the batch waits for funds. */
  private fundsSuffice(neededKopecks: number, balanceKopecks: number): boolean {
    this.funds = { neededKopecks, balanceKopecks, checkedAt: iso() };
    if (balanceKopecks >= neededKopecks) return (this.carry.fundsOk = true);
    this.enterStage('funds');
    return false;
  }

  /** The STATE search attribute changes with the stage (the `paying` one only after a wait). */
  private enterStage(stage: 'funds' | 'paying'): void {
    if (this.stage !== stage)
      upsertSearchAttributes([{ key: STATE, value: stage === 'funds' ? 'awaiting_funds' : 'paying' }]);
    this.stage = stage;
  }

  private historyFull(): boolean {
    const info = workflowInfo();
    return info.historyLength >= this.opts.continueAsNewAfterEvents || info.continueAsNewSuggested;
  }

  // ─── Query, signals and operator commands ──────────────────────────────────────────────────────

  get phase(): BatchPhase {
    const { stage, carry } = this;
    return batchPhase({ done: !!this.final, cancelled: this.cancelled, stage, paused: carry.paused });
  }

  get progress(): BatchProgress {
    const { carry, auth } = this;
    return {
      batchId: this.batchId,
      phase: this.phase,
      fileName: carry.meta.fileName,
      rows: carry.meta.rowCount,
      invalidRows: carry.meta.invalidRows,
      totalKopecks: carry.meta.totalKopecks,
      dispatched: carry.dispatched,
      inFlight: this.window.inFlight.size,
      scheduled: this.window.sleeping,
      finished: finishedCount(carry.tally),
      counts: carry.tally.counts,
      amounts: carry.tally.amounts,
      failures: carry.tally.failures,
      failureCount: carry.tally.failureCount,
      approval: {
        required: auth?.required ?? this.opts.requireApproval,
        ...(carry.approval ? { by: carry.approval.by, at: carry.approval.at } : {}),
        ...(auth
          ? {
              because: auth.because,
              needed: auth.needed,
              submitter: auth.submitter,
              approvedBy: auth.approvedBy,
              ...(auth.rejected ? { rejected: auth.rejected } : {}),
            }
          : {}),
      },
      ...(carry.commands?.length ? { commands: carry.commands } : {}),
      funds: this.funds,
      runs: carry.runs,
      final: this.final,
      ...(this.ignoredSignals.length ? { notes: [...this.ignoredSignals] } : {}),
    };
  }

  fundsChangedSignalled(): void {
    this.fundsChanged = true;
  }

  recordChangedSignalled(): void {
    if (this.stage === 'approval' && !this.final) this.recordChanged = true;
  }

  noteIgnored(what: string): void {
    if (this.ignoredSignals.push(`${iso()} ${what}`) > NOTES_KEPT) this.ignoredSignals.shift();
  }

  recordCommand(c: Omit<BatchCommandRecord, 'at'>): void {
    const commands = (this.carry.commands ??= []);
    commands.push({ ...c, at: iso() });
    if (commands.length > COMMANDS_KEPT) commands.shift();
  }

  /** The validators' check: a statement that would not count is refused before it reaches history. */
  admitDecision(decision: 'approve' | 'reject', raw: unknown): SignedStatement {
    const parsed = parseSignedStatement(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    const s = parsed.value.statement;
    if (s.kind !== 'batch' || s.decision !== decision)
      throw new Error(`expected a signed ${decision} statement about this batch`);
    if (!this.auth) throw new Error('the batch has not read its file and policy yet: try again in a moment');
    const { fileSha256, totalKopecks, rowCount: rows } = this.carry.meta;
    const subject = { batchId: this.batchId, fileSha256, totalKopecks, rows };
    const checked = checkBatchDecision(this.auth, parsed.value, subject, workflowNow());
    if (!checked.ok) throw new Error(checked.reason);
    return parsed.value;
  }

  /** A decision the validator let through: the worker checks it again under its current policy and keeps it. */
  async decide(signed: SignedStatement): Promise<string> {
    const s = signed.statement as BatchStatement;
    const answer = await this.decisionAnswer(signed, s);
    this.recordCommand({
      command: s.decision as 'approve' | 'reject',
      by: s.person,
      proven: true,
      answer,
      ...(s.reason ? { note: s.reason } : {}),
    });
    return answer;
  }

  private async decisionAnswer(signed: SignedStatement, s: BatchStatement): Promise<string> {
    if (this.final) return `nothing to ${s.decision}: the batch is done`;
    if (s.decision === 'approve') {
      const { cancelRequest, carry, auth } = this;
      if (cancelRequest) return `nothing is awaiting approval: cancelled by ${cancelRequest.by}`;
      if (carry.approval) return `nothing is awaiting approval: paying was allowed (${carry.approval.by})`;
      if (auth && !auth.required && !auth.rejected) return 'approval is not required for this batch';
    }
    const requested = this.opts.requireApproval;
    const outcome = await recordBatchDecision({ batchId: this.batchId, signed, requested });
    const auth = (this.auth = this.remember(outcome.auth));
    if (!outcome.accepted) return `refused: ${outcome.reason}`;
    if (s.decision === 'reject') {
      const why = `rejected by ${s.person}${s.reason ? `: ${s.reason}` : ''}`;
      this.cancel({ by: s.person, reason: why });
      return `${why}; this file is not paid by any batch until it is approved again`;
    }
    const count = `${auth.approvedBy.length} of ${auth.needed}`;
    return auth.satisfied
      ? `approved by ${s.person} (${count}): paying may start`
      : `approved by ${s.person} (${count}): waiting for another approver`;
  }

  pause(): string {
    if (this.final || this.cancelled) return `nothing to pause: the batch is ${this.phase}`;
    if (this.carry.paused) return 'already paused';
    this.carry.paused = true;
    return 'paused: no new payouts start; those in flight finish';
  }

  resume(): string {
    if (!this.carry.paused) return `not paused (the batch is ${this.phase})`;
    this.carry.paused = false;
    return 'resumed';
  }

  cancel(req: CancelCommand): string {
    if (this.final) return 'nothing to cancel: the batch is done';
    if (this.cancelRequest) return `already cancelled by ${this.cancelRequest.by}`;
    this.cancelRequest = req;
    this.window.cancelStarted();
    return 'cancelling: no new payouts start; those in flight are cancelled where the bank still allows';
  }
}
