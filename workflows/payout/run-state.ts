import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { checkPayoutApproval } from '../shared/approval';
import type { PayoutAuthorization, PolicyView, SignedStatement } from '../shared/approval-contract';
import { payoutSettledSignal } from '../batch/contract';
import type { CancelCommand } from '../shared/operator-contract';
import type { PayoutCarry, PayoutInput, PayoutStatus } from './contract';
import { verdictRefusal, type TaxpayerVerdict } from '../taxpayer/contract';
import { maskNumbers, NEEDS_ATTENTION_TYPE, notPaidType, type NotPaidState } from './ending';
import { PayoutTracker } from './tracker';
import { iso, workflowNow } from '../shared/time';

const HOUR = 3_600_000;
const DEFAULTS = {
  pollAfterMs: 60_000,
  confirmWindowMs: 4 * HOUR,
  confirmSafetyMarginMs: 15 * 60_000,
  creditConfirmationBusinessDays: 7,
  taxpayerCheckMaxAgeMs: 24 * HOUR,
};

/**
 * A patch (it changes commands, so histories recorded before it replay): a taxpayerVerdict signal is only
 * a wake-up, the verdict read from the taxpayer workflow itself (issue 23).
 */
export const VERDICT_FROM_OWN_CHECK = 'taxpayer-verdict-from-own-check';

/**
 * What one run of a payout knows, and how operators' commands, signals and the endings change it. The
 * steps that act on it are PayoutRun's (workflows/payout/run.ts); all of it is carried when the payout
 * continues as new, so a continued run knows what its predecessor knew.
 */
export abstract class PayoutRunState {
  readonly tracker: PayoutTracker;
  protected readonly opts: typeof DEFAULTS & NonNullable<PayoutInput['options']>;
  protected readonly request: PayoutInput['request'];
  protected readonly ids = workflowInfo();
  /** The bank's idempotency key of this payout's writes: the same in every run it continues as. */
  protected readonly sessionKey: string;
  verdict?: TaxpayerVerdict;
  cancelRequest?: CancelCommand;
  /** A refusing verdict that came after the session was created: it is cancelled, the row rejected. */
  protected lateRefusal?: { code: string; reason: string };
  protected confirmSent = false;
  /** The policy an approval of this run is checked against: set when the worker says one is needed. */
  protected approvalPolicy?: PolicyView;
  /** Why this run may not pay at all (not in an approved batch's file): it ends rejected, no session. */
  protected refusal?: Extract<PayoutAuthorization, { kind: 'refused' }>;
  /** A taxpayerVerdict signal came: read the verdict from the taxpayer workflow (the signal is not believed). */
  protected verdictWake = false;
  /**
   * An allowing verdict a signal claimed: the create checks it with the taxpayer workflow before it calls
   * the bank (activities/bank.ts), so the usual answer costs no event of its own.
   */
  protected allowClaim?: TaxpayerVerdict;
  /** This run reads every signalled verdict back (it met a refusing one under VERDICT_FROM_OWN_CHECK). */
  protected readsVerdicts = false;
  /** A batch waiting for this payout without being its parent asks to be told when it settles. */
  reportTo?: string;
  protected told = false;
  protected step: PayoutCarry['step'] = 'confirm';
  protected confirmDeadline = 0;
  protected creditUntil?: number;
  protected continuing = false;

  constructor(
    protected readonly input: PayoutInput,
    protected readonly carry?: PayoutCarry,
  ) {
    this.opts = { ...DEFAULTS, ...input.options };
    this.request = input.request;
    this.sessionKey = `${this.ids.workflowId}:${this.ids.firstExecutionRunId}`;
    const env = { upsert: upsertSearchAttributes, now: iso };
    this.tracker = carry ? PayoutTracker.restore(input, carry.tracker, env) : new PayoutTracker(input, env);
    if (carry) this.takeCarry(carry);
  }

  get status(): PayoutStatus {
    return this.tracker.status;
  }

  protected get phase() {
    // Read through a getter: TypeScript would keep a narrowing of `tracker.phase` across awaits.
    return this.tracker.phase;
  }

  protected isFinal = () => this.tracker.status.timestamps.finished !== undefined;

  // ─── Commands and signals ───────────────────────────────────────────────────────────────────────

  /** The validator's check: a forged, replayed or expired approval is refused before it reaches history. */
  admitApproval(signed: SignedStatement): void {
    if (!this.tracker.status.approval!.required) return; // answered "not required" below
    if (!this.approvalPolicy)
      throw new Error('the payout has not read the policy yet: try again in a moment');
    const { reference, amount } = this.request;
    const checked = checkPayoutApproval(
      this.approvalPolicy,
      signed,
      { reference, runId: this.ids.runId, amount },
      workflowNow(),
    );
    if (!checked.ok) throw new Error(checked.reason);
  }

  approve(signed: SignedStatement): string {
    const approval = this.tracker.status.approval!;
    if (!approval.required) return 'approval is not required for this payout';
    if (approval.approvedBy) return `already approved by ${approval.approvedBy}`;
    if (this.isFinal()) return `nothing is awaiting approval: the payout ended ${this.tracker.status.state}`;
    if (this.cancelRequest) return `nothing is awaiting approval: cancelled by ${this.cancelRequest.by}`;
    this.tracker.status.approval = { ...approval, approvedBy: signed.statement.person, approvedAt: iso() };
    return this.tracker.status.state === 'awaiting_approval'
      ? 'approved'
      : 'approved; it is confirmed when the bank is ready';
  }

  cancel(req: CancelCommand): string {
    if (this.cancelRequest) return `already cancelled by ${this.cancelRequest.by}`;
    if (this.isFinal()) return `nothing to cancel: the payout ended ${this.tracker.status.state}`;
    if (this.confirmSent)
      return `too late to cancel: the payout was confirmed (${this.tracker.status.state})`;
    this.cancelRequest = req;
    this.tracker.note(`cancel requested by ${req.by}${req.reason ? `: ${req.reason}` : ''}`);
    return 'cancel requested: the payout is cancelled before any money moves';
  }

  /**
   * Anyone who can reach Temporal can send this signal, so its content is not the verdict: it only says
   * the taxpayer workflow may have answered. An allowing claim goes to the create, which pays only if the
   * taxpayer workflow itself holds a verdict that allows it (the same commands as before, so no patch and
   * no extra event on the usual path); a refusing one makes the payout read the verdict back (a patch:
   * runs recorded before this rule took the first signal's content as the verdict, and still replay so).
   */
  verdictSignalled(v: TaxpayerVerdict | null | undefined): void {
    const ok = v && typeof v.isProfessionalIncomeTaxpayer === 'boolean' && typeof v.isLinked === 'boolean';
    if (!ok) this.tracker.note('ignored a malformed taxpayerVerdict signal');
    else if (this.readsVerdicts) this.verdictWake = true;
    else if (!verdictRefusal(v)) this.allowClaim ??= v;
    else if (patched(VERDICT_FROM_OWN_CHECK)) {
      this.readsVerdicts = true;
      this.verdictWake = true;
    } else this.verdict ??= v;
  }

  /** A nudge only: the batch reads this payout's record from the server before it counts the row. */
  async tellBatch(to: string | undefined): Promise<void> {
    if (!to || this.told || this.continuing) return;
    this.told = true;
    await getExternalWorkflowHandle(to)
      .signal(payoutSettledSignal, { reference: this.request.reference })
      .catch(() => undefined); // the batch has finished: nobody waits
  }

  // ─── Endings ────────────────────────────────────────────────────────────────────────────────────

  /** Ends the run as Failed with a clean not-paid outcome, so the reference may be paid by a later run. */
  protected finish(state: NotPaidState, code: string, reason: string): never {
    const status = this.tracker.fail(state, { code, reason: maskNumbers(reason) });
    this.tracker.publish();
    throw ApplicationFailure.create({
      message: `payout ${state}: ${status.failure!.reason}`,
      type: notPaidType(state),
      details: [status],
      nonRetryable: true,
    });
  }

  protected needsAttention(reason: string): never {
    // A reconcile run is what that command starts: its reason says what a person checks, never "run it again".
    const full = this.opts.reconcileOnly
      ? maskNumbers(reason)
      : `${maskNumbers(reason)}; run \`payrun payout reconcile ${this.request.reference}\` to ask the bank`;
    const status = this.tracker.fail('needs_attention', { code: 'needs_attention', reason: full });
    this.tracker.publish(true); // operators search for these
    throw ApplicationFailure.create({
      message: full,
      type: NEEDS_ATTENTION_TYPE,
      details: [status],
      nonRetryable: true,
    });
  }

  protected cancelledBeforeMoney(): never {
    return this.lateRefusal
      ? this.finish(
          'rejected',
          this.lateRefusal.code,
          `${this.lateRefusal.reason}; its session was cancelled`,
        )
      : this.finish('cancelled', 'cancelled_by_operator', `cancelled by ${this.cancelRequest!.by}`);
  }

  // ─── Carried over continue-as-new ───────────────────────────────────────────────────────────────

  /** Everything this run knows, for the run it continues as. */
  protected carryForward(): PayoutCarry {
    return {
      step: this.step,
      tracker: this.tracker.snapshot(),
      confirmDeadline: this.confirmDeadline,
      ...(this.creditUntil !== undefined ? { creditUntil: this.creditUntil } : {}),
      ...(this.verdict ? { verdict: this.verdict } : {}),
      ...(this.cancelRequest ? { cancelRequest: this.cancelRequest } : {}),
      ...(this.lateRefusal ? { lateRefusal: this.lateRefusal } : {}),
      confirmSent: this.confirmSent,
      ...(this.approvalPolicy ? { approvalPolicy: this.approvalPolicy } : {}),
      ...(this.reportTo ? { reportTo: this.reportTo } : {}),
      told: this.told,
      continuations: (this.carry?.continuations ?? 0) + 1,
    };
  }

  private takeCarry(carry: PayoutCarry): void {
    this.step = carry.step;
    this.confirmDeadline = carry.confirmDeadline;
    this.creditUntil = carry.creditUntil;
    this.verdict = carry.verdict;
    this.cancelRequest = carry.cancelRequest;
    this.lateRefusal = carry.lateRefusal;
    this.confirmSent = carry.confirmSent;
    this.approvalPolicy = carry.approvalPolicy;
    this.reportTo = carry.reportTo;
    this.told = carry.told;
  }
}
