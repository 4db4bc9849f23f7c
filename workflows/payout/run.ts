import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentSession } from '../../src/bank';
import type { BeforeCreating } from '../../activities/payout-runs';
import { firstPayout } from '../shared/bank-session';
import type { PayoutAuthorization } from '../shared/approval-contract';
import type { PayoutInput, PayoutState, PayoutStatus } from './contract';
import type { PayoutCarry } from './state';
import { VERDICT_UNCONFIRMED, verdictRefusal, type TaxpayerVerdict } from '../taxpayer/contract';
import {
  bankFailure,
  beforeCreating,
  cancelSession,
  causeType,
  confirmSession,
  createPayoutSession,
  errorText,
  getSession,
  lookUpOrCreate,
  taxpayerVerdict,
} from './activities';
import { PayoutRunState } from './run-state';
import { SessionWatch, type ConfirmWithCheck } from './watch';
import { alreadyPaid, settleEarlierRuns } from './earlier-runs';
import { sleepUntilPayOn } from './schedule';
import { addBusinessDays, iso, workflowNow } from '../shared/time';

/** A payout near Temporal's history limits continues as new with its state (runs recorded before it replay). */
export const CONTINUE_WHEN_HISTORY_FULL = 'payout-continue-as-new';

/**
 * A patch (it adds a wait, and a marker, where a session was ready in the task that created it): money
 * moves only in a later workflow task than the one that created the session, so a run that ended before
 * its first task completed provably confirmed nothing (src/batch/services/run-history.ts trusts this).
 */
export const CONFIRM_AFTER_CREATE_RECORDED = 'payout-confirm-after-create-recorded';

/** Well below Temporal's limits (51 200 events, 50 MB), so the run has room to settle and carry its state. */
const MAX_HISTORY_EVENTS = 8_000;
const MAX_HISTORY_BYTES = 8 * 1024 * 1024;

/** The workflow function's type, for continue-as-new (the payout's own run only ever passes `carry`). */
type PayoutWorkflowFn = (input: PayoutInput, carry?: PayoutCarry) => Promise<PayoutStatus>;

/**
 * One run of a payout, step by step; payoutWorkflow (workflows/payout/workflow.ts) wires the handlers to it. The
 * steps: input checked → earlier runs of the reference settled with the bank → taxpayer check → bank
 * session → ready_to_confirm → (approval) → one confirm within the bank's 4-hour window →
 * payment_finished → (confirmation_payout or a return). docs/payouts.md describes every step and ending.
 */
export class PayoutRun extends PayoutRunState {
  private readonly watch: SessionWatch;

  constructor(input: PayoutInput, carry?: PayoutCarry) {
    super(input, carry);
    this.watch = new SessionWatch(
      this.tracker,
      this.opts.pollAfterMs,
      () => this.historyNearLimit(),
      () => this.continueAsNewHere(),
      this.opts.confirmWithCheck ? this.confirmWithCheck() : undefined,
    );
  }

  /** Set when the webhook check sent the confirm and the bank took it: step 5 is done. */
  private confirmedWithCheck = false;

  /**
   * When the webhook check may send the confirm itself: waiting for readiness in step 3, with nothing
   * else to wait for (no approval of its own, no cancel), and not in the task that created the session
   * (money moves only in a later task, CONFIRM_AFTER_CREATE_RECORDED). Whatever the check did with the
   * confirm is recorded in its own marker, so a replay decides the same.
   */
  private confirmWithCheck(): ConfirmWithCheck {
    return {
      ask: () =>
        this.state.step === 'confirm' &&
        this.phase === 'processing' &&
        !this.state.confirmSent &&
        !this.state.cancelRequest &&
        !this.tracker.status.approval!.required &&
        this.state.createdInTask !== workflowInfo().historyLength
          ? { key: this.sessionKey, from: this.phase }
          : undefined,
      started: () => {
        this.confirmInFlight = true;
      },
      ended: (confirm) => {
        this.confirmInFlight = false;
        if (confirm === undefined) return;
        // Sent, whatever came back: the bank may have applied it, so no cancel may be promised now.
        this.state.confirmSent = true;
        if (confirm === 'unknown' || !confirm.ok) {
          const why =
            confirm === 'unknown' ? 'the check failed' : (confirm.type ?? errorText(confirm.message));
          this.tracker.note(`confirm with the webhook check did not finish (${why}); confirming again`);
          return;
        }
        this.tracker.setState('confirming');
        this.tracker.status.timestamps.confirmed = iso();
        this.confirmedWithCheck = true;
      },
    };
  }

  // ─── Steps ──────────────────────────────────────────────────────────────────────────────────────

  /** 0. At most once whoever starts it: every earlier run of this reference is settled with the bank. */
  async run(): Promise<PayoutStatus> {
    if (this.carry) return this.settled(this.resume(this.state.step));
    const { workflowId, runId } = this.ids;
    const { opts, request } = this;
    const asksVerdict = request.selfEmployed && !opts.reconcileOnly;
    const authorize = {
      batchId: this.input.batchId,
      // Told by the server, not the input: a payout of a batch pays only when that batch started it.
      ...(this.input.batchId !== undefined ? { startedBy: workflowInfo().parent?.workflowId ?? null } : {}),
      request,
      ...(this.input.options?.requireApproval ? { requested: true } : {}),
    };
    const ask = {
      workflowId,
      currentRunId: runId,
      ...(asksVerdict ? { taxpayer: this.taxpayerAsk } : {}),
      ...(opts.reconcileOnly ? {} : { authorize }),
    };
    // A scheduled row (pay_on) reserves its place, sleeps until its day and checks again; then goes on below.
    if (request.payOn !== undefined && !opts.reconcileOnly)
      await sleepUntilPayOn({
        input: this.input,
        state: this.state,
        tracker: this.tracker,
        authorize,
        authorized: (held) => this.applyAuthorization(held.authorization),
        end: (r) => this.finish(r.state, r.code, r.reason),
        cancelled: () => this.cancelledBeforeMoney(),
      });
    // Usually nothing stands in the session's way, and one attempt of the look-up creates it too. Anything
    // else — a refusal, a failed attempt, a verdict or a cancel already here — takes the separate steps
    // below, as every payout did before (and as histories recorded before replay: no `created`).
    const deadlineFrom = workflowNow();
    let before: BeforeCreating | undefined;
    if (!opts.reconcileOnly && this.state.cancelRequest === undefined && this.state.verdict === undefined) {
      try {
        before = await lookUpOrCreate({ ...ask, createIfClear: this.createInput });
      } catch (err) {
        if (isCancellation(err)) throw err;
        this.tracker.note(
          `creating the session with the look-up failed (${errorText(err)}); trying step by step`,
        );
      }
      if (before?.created) {
        this.applyAuthorization(before.authorization);
        return this.payCreated(before.created, before.verdict, deadlineFrom);
      }
    }
    before ??= await beforeCreating(ask);
    this.applyAuthorization(before.authorization);
    this.state.verdict ??= before.verdict;
    const earlier = before.earlier;
    const paidBefore = await settleEarlierRuns(earlier, {
      tracker: this.tracker,
      workflowId,
      pollAfterMs: opts.pollAfterMs,
      needsAttention: (reason) => this.needsAttention(reason),
    });
    if (paidBefore) alreadyPaid(request.reference, paidBefore, this.tracker.status);
    if (opts.reconcileOnly)
      return this.finish(
        'failed',
        'reconciled_not_paid',
        earlier.length
          ? 'reconciled with the bank: no earlier run of this reference moved money; it may be paid again'
          : 'nothing to reconcile: no earlier run of this reference',
      );
    if (this.state.refusal)
      return this.finish('rejected', this.state.refusal.code, this.state.refusal.reason);
    const reserved = before.reservation;
    if (reserved && !reserved.ok)
      return this.finish(
        'limit_exceeded',
        'limit_exceeded',
        reserved.reason ?? `would pass the ${reserved.limit} limit`,
      );
    return this.settled(this.pay());
  }

  private applyAuthorization(a: PayoutAuthorization | undefined): void {
    // Absent in histories recorded before approvals existed, and in a reconcile run that pays nothing.
    if (a?.kind === 'own_approval') {
      this.state.approvalPolicy = a.policy;
      this.tracker.status.approval = { ...this.tracker.status.approval!, required: true };
      this.tracker.note(`approval required: ${a.because}`);
    } else if (a?.kind === 'refused') this.state.refusal = a;
  }

  /** The session already exists: created with the look-up, after the verdict it read allowed it. */
  private async payCreated(
    created: PaymentSession,
    checked: TaxpayerVerdict | undefined,
    deadlineFrom: number,
  ): Promise<PayoutStatus> {
    if (this.request.selfEmployed) {
      this.state.verdict ??= checked;
      this.tracker.status.taxpayer = taxpayerStatus(this.state.verdict!);
      // A verdict signalled while the look-up ran (a run recorded before verdicts came only from the
      // taxpayer workflow) may refuse what it allowed: no confirm, the session is cancelled.
      this.state.lateRefusal = verdictRefusal(this.state.verdict!);
      if (this.state.lateRefusal) {
        this.tracker.note(
          `a taxpayer verdict received meanwhile refuses the recipient (${this.state.lateRefusal.code})`,
        );
        this.state.cancelRequest ??= { by: 'the taxpayer check', reason: this.state.lateRefusal.reason };
      }
    }
    this.sessionCreated(created);
    return this.settled(this.awaitAndConfirm(this.confirmDeadlineFrom(deadlineFrom)));
  }

  private async settled(paying: Promise<PayoutStatus>): Promise<PayoutStatus> {
    try {
      return await paying;
    } catch (err) {
      // Our own endings pass through; a bank call that kept failing after the session existed does not.
      const ending = err instanceof ApplicationFailure && err.type?.startsWith('payout_');
      if (!ending && (err instanceof ActivityFailure || bankFailure(err)))
        return this.needsAttention(`the payout could not be settled: ${errorText(err)}`);
      throw err;
    }
  }

  /** 1–2. The taxpayer check, then the session. */
  private async pay(): Promise<PayoutStatus> {
    const { request } = this;
    // 1. The recipient must be a professional income taxpayer who linked us; otherwise no session at all.
    this.tracker.setState(request.selfEmployed ? 'checking_taxpayer' : 'creating_session');
    let claim: TaxpayerVerdict | undefined;
    if (request.selfEmployed) {
      await this.awaitVerdict();
      if (this.state.cancelRequest) return this.cancelledBeforeMoney();
      claim = this.state.verdict ? undefined : this.state.allowClaim;
      this.tracker.status.taxpayer = taxpayerStatus((this.state.verdict ?? claim)!);
      const refusal = this.state.verdict && verdictRefusal(this.state.verdict);
      if (refusal) this.finish('rejected', refusal.code, refusal.reason);
      this.tracker.setState('creating_session');
    }
    if (this.state.cancelRequest) return this.cancelledBeforeMoney();

    // 2. Create the payout; the deadline counts from before the call, so it is never later than the bank's.
    const deadlineFrom = workflowNow();
    try {
      const confirm = claim ? { confirmVerdict: this.taxpayerAsk } : {};
      this.sessionCreated(await createPayoutSession({ ...this.createInput, ...confirm }));
      this.state.verdict ??= claim;
    } catch (err) {
      if (claim && causeType(err) === VERDICT_UNCONFIRMED) {
        // A claim the taxpayer workflow does not back (forged, or ahead of the check): nothing was created.
        this.tracker.note('a taxpayerVerdict signal was not backed by the taxpayer check; reading it back');
        this.state.allowClaim = undefined;
        this.state.verdictWake = true;
        return this.pay();
      }
      // No session id came back, so nothing of ours can ever confirm one: this run moved no money.
      const code = causeType(err) ?? 'create_failed';
      const words = bankFailure(err)?.message ?? errorText(err);
      return this.finish('failed', code, `the bank refused the payout: ${words}`);
    }
    return this.awaitAndConfirm(this.confirmDeadlineFrom(deadlineFrom));
  }

  /**
   * The verdict, asked for in beforeCreating. The taxpayer workflow answers with a signal, which only
   * wakes the payout: the verdict is read from that workflow (a local activity). Asked again if no signal
   * comes in 10 minutes (a lost request), or if the workflow has no fresh verdict yet (a forged wake-up).
   */
  private async awaitVerdict(): Promise<void> {
    while (!this.state.verdict && !this.state.cancelRequest) {
      const claimed = () => this.state.allowClaim !== undefined && !this.state.verdictWake;
      if (claimed()) return; // the create checks the claim
      const woken = () =>
        this.state.verdict !== undefined ||
        this.state.verdictWake ||
        claimed() ||
        this.state.cancelRequest !== undefined;
      if (await condition(woken, '10 minutes')) {
        if (this.state.cancelRequest || claimed()) break;
        if (!this.state.verdictWake) break;
        this.state.verdictWake = false;
      }
      this.state.verdict = await taxpayerVerdict(this.taxpayerAsk);
    }
  }

  /** Steps 3 to 5, once the bank session exists. */
  private async awaitAndConfirm(confirmDeadline: number): Promise<PayoutStatus> {
    const { tracker } = this;
    this.state.step = 'confirm';
    this.state.confirmDeadline = confirmDeadline;
    // 3. Wait for the bank to be ready for our confirmation (a cancel, too, must wait for it).
    tracker.setState('awaiting_ready_to_confirm');
    await this.watch.until(() => this.phase !== 'processing');
    if (await this.untilCreateRecorded()) await this.watch.until(() => this.phase !== 'processing');
    if (this.phase === 'failed')
      return this.finish('failed', tracker.status.failure!.code, tracker.status.failure!.reason);
    if (this.phase === 'ready_to_confirm') tracker.status.timestamps.readyToConfirm ??= iso();

    // 4. Approval (when asked) and cancellation, both only before the confirm window closes.
    if (tracker.status.approval!.required && this.phase === 'ready_to_confirm') {
      tracker.setState('awaiting_approval');
      tracker.publish(true); // what waits for a person is what operators search for
      if (!(await this.awaitApproval(confirmDeadline))) {
        await cancelSession({ sessionId: tracker.sessionId!, key: this.sessionKey });
        return this.finish(
          'expired',
          'approval_timeout',
          'no approval before the bank’s confirm window closed; session cancelled',
        );
      }
    }
    if (this.state.cancelRequest && this.phase === 'ready_to_confirm' && !this.confirmedWithCheck) {
      await cancelSession({ sessionId: tracker.sessionId!, key: this.sessionKey });
      return this.cancelledBeforeMoney();
    }
    if (this.phase === 'ready_to_confirm' && !this.confirmedWithCheck) {
      const expired = await this.confirm(confirmDeadline);
      if (expired) return expired;
    }
    return this.awaitResult();
  }

  /**
   * A session the bank called ready in the very task that created it (its answer, or a webhook delivered
   * to a retried first task) waits for the next task: the task that created it has then completed, its
   * create marker is in history, and a run terminated before that moved nothing. Costs nothing usually
   * (readiness arrives as a signal, in a later task); here one marker, no timer (the poll chain wakes it).
   */
  private async untilCreateRecorded(): Promise<boolean> {
    const task = this.state.createdInTask;
    if (this.phase !== 'ready_to_confirm' || task !== workflowInfo().historyLength) return false;
    if (!patched(CONFIRM_AFTER_CREATE_RECORDED)) return false;
    await condition(() => workflowInfo().historyLength !== task);
    return true;
  }

  /** True once approved or cancelled; false when the confirm window closed first. */
  private async awaitApproval(confirmDeadline: number): Promise<boolean> {
    for (;;) {
      const left = confirmDeadline - workflowNow();
      const decided = () =>
        !!this.tracker.status.approval!.approvedBy || this.state.cancelRequest !== undefined;
      if (left <= 0) return false;
      if (await condition(() => decided() || this.historyNearLimit(), left)) {
        if (decided()) return true;
        await this.continueAsNewHere();
      } else return false;
    }
  }

  /**
   * 5. Confirm: the one step that moves money; the bank sees one key however often it is retried. A
   * failed confirm is not a failed payout: its answer may be lost after the bank applied it, so the
   * session decides — still pending means try again, anything else means it went through.
   */
  private async confirm(confirmDeadline: number): Promise<PayoutStatus | undefined> {
    const { tracker } = this;
    tracker.setState('confirming');
    this.state.confirmSent = true;
    for (;;) {
      try {
        await confirmSession({ sessionId: tracker.sessionId!, key: this.sessionKey });
        tracker.status.timestamps.confirmed = iso();
        return undefined;
      } catch (err) {
        const type = causeType(err);
        if (type === 'confirm_timeout')
          return this.finish('expired', 'confirm_timeout', 'the bank’s 4-hour confirm window had closed');
        tracker.note(`confirm failed (${type ?? errorText(err)}); reading session/status`);
        const session = await getSession({ sessionId: tracker.sessionId! });
        tracker.applySession(session, 'session/status after a failed confirm');
        if (firstPayout(session)?.status !== 'pending') {
          tracker.status.timestamps.confirmed ??= iso();
          return undefined;
        }
        if (workflowNow() > confirmDeadline + this.opts.confirmSafetyMarginMs) {
          await cancelSession({ sessionId: tracker.sessionId!, key: this.sessionKey });
          return this.finish(
            'expired',
            type ?? 'confirm_failed',
            'confirm kept failing until the window closed',
          );
        }
        await sleep('10 seconds');
      }
    }
  }

  /** 6. The result, as session/status tells it; 7. optionally the credit confirmation or a return. */
  private async awaitResult(): Promise<PayoutStatus> {
    const { tracker, opts } = this;
    this.state.step = 'result';
    tracker.setState('awaiting_result');
    await this.watch.until(() => this.phase === 'succeeded' || this.phase === 'failed');
    if (this.phase === 'failed')
      return this.finish('failed', tracker.status.failure!.code, tracker.status.failure!.reason);
    tracker.setState('succeeded', 'finished');
    this.watch.stopPolling();
    // The batch frees this row's slot now, not days later when the optional credit confirmation comes.
    if (opts.awaitCreditConfirmation) await this.tellBatch(this.state.reportTo ?? this.input.batchId);
    if (opts.awaitCreditConfirmation) {
      this.state.creditUntil =
        opts.creditConfirmationWindowMs !== undefined
          ? workflowNow() + opts.creditConfirmationWindowMs
          : addBusinessDays(workflowNow(), opts.creditConfirmationBusinessDays);
      return this.awaitCredit(this.state.creditUntil);
    }
    return this.ended();
  }

  private async awaitCredit(until: number): Promise<PayoutStatus> {
    const { tracker } = this;
    this.state.step = 'credit';
    const credit = await this.watch.until(() => !!tracker.credited || !!tracker.returnedAt, until);
    if (credit && tracker.credited) {
      if (tracker.status.state !== 'credited') {
        tracker.status.timestamps.credited = iso();
        tracker.setState('credited' satisfies PayoutState);
        tracker.note(`confirmation_payout: ${tracker.credited.event} (${tracker.credited.eventDate})`);
      }
      await this.watch.until(() => !!tracker.returnedAt, until);
    } else if (!credit) {
      tracker.note(`no confirmation_payout within ${this.opts.creditConfirmationBusinessDays} business days`);
    }
    return this.ended();
  }

  private ended(): PayoutStatus {
    const { tracker } = this;
    if (tracker.returnedAt) {
      tracker.status.timestamps.returned = tracker.returnedAt;
      tracker.setState('returned');
    }
    tracker.publish();
    return tracker.status;
  }

  // ─── Continue-as-new with the payout's state ────────────────────────────────────────────────────

  /** The step a continued run goes on from (the session exists: it is never created again). */
  private resume(step: PayoutCarry['step']): Promise<PayoutStatus> {
    this.tracker.note(
      `continued as new (run ${this.state.continuations + 1}): its history was near Temporal's limits`,
    );
    // The poll chain runs until the money is settled, as in the run this one continues.
    if (step !== 'credit') this.watch.startPolling();
    if (step === 'confirm') return this.awaitAndConfirm(this.state.confirmDeadline);
    if (step === 'result') return this.awaitResult();
    return this.awaitCredit(this.state.creditUntil!);
  }

  /** A history near Temporal's limits (a flood of signals): the run continues as new at its next wait. */
  private historyNearLimit(): boolean {
    if (!this.state.mayContinue) return false;
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > MAX_HISTORY_EVENTS ||
      info.historySize > MAX_HISTORY_BYTES
    );
  }

  /** Continues as new with everything this run knows; returns only for a run recorded before this existed. */
  private async continueAsNewHere(): Promise<void> {
    if (!patched(CONTINUE_WHEN_HISTORY_FULL)) {
      this.state.mayContinue = false;
      return;
    }
    const carry = this.carryForward();
    this.state.continuing = true;
    await continueAsNew<PayoutWorkflowFn>(this.input, carry);
  }

  // ─── Small parts ────────────────────────────────────────────────────────────────────────────────

  private get taxpayerAsk() {
    return {
      taxReference: this.request.recipient.taxReference,
      replyTo: this.ids.workflowId,
      maxAgeMs: this.opts.taxpayerCheckMaxAgeMs,
    };
  }

  private get createInput() {
    const { workflowId, firstExecutionRunId } = this.ids;
    return {
      workflowId,
      runKey: firstExecutionRunId,
      request: this.request,
      batchId: this.input.batchId,
      // Only a local activity's input, never compared on replay: no patch needed.
      ...(this.opts.awaitCreditConfirmation ? {} : { endsAtResult: true }),
    };
  }

  private confirmDeadlineFrom(t: number): number {
    return t + this.opts.confirmWindowMs - this.opts.confirmSafetyMarginMs;
  }

  private sessionCreated(created: PaymentSession): void {
    this.state.createdInTask = workflowInfo().historyLength;
    this.tracker.status.timestamps.sessionCreated = iso();
    this.tracker.applySession(created, 'session created');
    this.tracker.publish();
    this.watch.startPolling();
  }
}

const taxpayerStatus = (v: TaxpayerVerdict) => ({
  isProfessionalIncomeTaxpayer: v.isProfessionalIncomeTaxpayer,
  isLinked: v.isLinked,
  checkedAt: v.checkedAt,
});
