import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { checkPayoutApproval } from '../shared/approval';
import type { SignedStatement } from '../shared/approval-contract';
import { payoutSettledSignal } from '../batch/contract';
import type { CancelCommand } from '../shared/operator-contract';
import type { PayoutInput, PayoutStatus } from './contract';
import { carryOf, freshPayoutState, stateFromCarry, type PayoutCarry, type PayoutRunData } from './state';
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
 * steps that act on it are PayoutRun's (workflows/payout/run.ts). Its state is one object (`state`), carried
 * whole but for the keys workflows/payout/state.ts names as one run's own, so a continued run knows what
 * its predecessor knew.
 */
export abstract class PayoutRunState {
  readonly tracker: PayoutTracker;
  protected readonly opts: typeof DEFAULTS & NonNullable<PayoutInput['options']>;
  protected readonly request: PayoutInput['request'];
  protected readonly ids = workflowInfo();
  /** The bank's idempotency key of this payout's writes: the same in every run it continues as. */
  protected readonly sessionKey: string;
  /** Everything this run knows, in one plain object: workflows/payout/state.ts says what is carried. */
  readonly state: PayoutRunData;
  /** A webhook check that may send the confirm is running (this run's only; never carried). */
  protected confirmInFlight = false;

  constructor(
    protected readonly input: PayoutInput,
    /** Set only in a run the payout's own continue-as-new started (payoutWorkflow checks that). */
    protected readonly carry?: PayoutCarry,
  ) {
    this.opts = { ...DEFAULTS, ...input.options };
    this.request = input.request;
    this.sessionKey = `${this.ids.workflowId}:${this.ids.firstExecutionRunId}`;
    const env = { upsert: upsertSearchAttributes, now: iso };
    this.tracker = carry ? PayoutTracker.restore(input, carry.tracker, env) : new PayoutTracker(input, env);
    this.state = carry ? stateFromCarry(carry) : freshPayoutState();
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
    if (!this.state.approvalPolicy)
      throw new Error('the payout has not read the policy yet: try again in a moment');
    const { reference, amount } = this.request;
    const checked = checkPayoutApproval(
      this.state.approvalPolicy,
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
    if (this.state.cancelRequest)
      return `nothing is awaiting approval: cancelled by ${this.state.cancelRequest.by}`;
    this.tracker.status.approval = { ...approval, approvedBy: signed.statement.person, approvedAt: iso() };
    return this.tracker.status.state === 'awaiting_approval'
      ? 'approved'
      : 'approved; it is confirmed when the bank is ready';
  }

  cancel(req: CancelCommand): string {
    if (this.state.cancelRequest) return `already cancelled by ${this.state.cancelRequest.by}`;
    if (this.isFinal()) return `nothing to cancel: the payout ended ${this.tracker.status.state}`;
    if (this.state.confirmSent)
      return `too late to cancel: the payout was confirmed (${this.tracker.status.state})`;
    // The webhook check under way may be sending the confirm (PayoutRun.confirmWithCheck): a cancel now
    // could not be kept. It is refused, and may be asked again once the check has ended.
    if (this.confirmInFlight) return 'too late to cancel: the confirm may be under way; ask again to see';
    this.state.cancelRequest = req;
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
    else if (this.state.readsVerdicts) this.state.verdictWake = true;
    else if (!verdictRefusal(v)) this.state.allowClaim ??= v;
    else if (patched(VERDICT_FROM_OWN_CHECK)) {
      this.state.readsVerdicts = true;
      this.state.verdictWake = true;
    } else this.state.verdict ??= v;
  }

  /** A nudge only: the batch reads this payout's record from the server before it counts the row. */
  async tellBatch(to: string | undefined): Promise<void> {
    if (!to || this.state.told || this.state.continuing) return;
    this.state.told = true;
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
    return this.state.lateRefusal
      ? this.finish(
          'rejected',
          this.state.lateRefusal.code,
          `${this.state.lateRefusal.reason}; its session was cancelled`,
        )
      : this.finish('cancelled', 'cancelled_by_operator', `cancelled by ${this.state.cancelRequest!.by}`);
  }

  // ─── Carried over continue-as-new ───────────────────────────────────────────────────────────────

  /** Everything this run knows, for the run it continues as. */
  protected carryForward(): PayoutCarry {
    return carryOf(this.state, this.tracker.snapshot());
  }
}
