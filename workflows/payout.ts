import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentSession } from '../src/bank';
import type { createBankActivities } from '../activities/bank';
import type { BeforeCreating, createPayoutRunActivities } from '../activities/payout-runs';
import type { createWebhookActivities } from '../activities/webhooks';
import {
  BANK_READ,
  BANK_SETTLE,
  BANK_WRITE_ONCE,
  LOOKUP_THEN_CREATE,
  TEMPORAL_READ,
  WEBHOOK_CHECK,
} from './activity-options';
import { checkPayoutApproval, parseSignedStatement } from './approval';
import { firstPayout, readPayoutSession } from './bank-session';
import type { PayoutAuthorization, PolicyView, SignedStatement } from './contracts/approval';
import { bankEventSignal } from './contracts/bank-event';
import { payoutSettledSignal } from './contracts/batch';
import type { CancelCommand } from './contracts/operator';
import {
  approvePayoutUpdate,
  approveSignal,
  cancelPayoutUpdate,
  cancelSignal,
  payoutStatusQuery,
  payoutWorkflowId,
  reportToSignal,
  type EarlierPayoutRun,
  type PayoutInput,
  type PayoutState,
  type PayoutStatus,
} from './contracts/payout';
import { taxpayerVerdictSignal, verdictRefusal, type TaxpayerVerdict } from './contracts/taxpayer';
import {
  ALREADY_PAID_TYPE,
  maskNumbers,
  NEEDS_ATTENTION_TYPE,
  notPaidType,
  PAID_STATES,
  REFERENCE_CONFLICT_TYPE,
  type NotPaidState,
} from './payout-ending';
import { PayoutTracker } from './payout-tracker';
import { referenceDifferences } from './reference';
import { addBusinessDays, iso, workflowNow } from './time';
import {
  BATCH_ID_PATTERN,
  invalidInput,
  parseBankEvent,
  parseCancellation,
  parsePayoutInput,
  type Result,
} from './validation';

type Acts = ReturnType<typeof createBankActivities>;
type RunActs = ReturnType<typeof createPayoutRunActivities>;
type WebhookActs = ReturnType<typeof createWebhookActivities>;

const { createPayoutSession } = proxyLocalActivities<Acts>(BANK_WRITE_ONCE);
const { confirmSession } = proxyLocalActivities<Acts>(BANK_SETTLE);
/**
 * A regular activity, not a local one: a cancel follows an operator's Update, and a local activity would
 * hold that Update's workflow task open until the bank answered — if the workflow then closed in the same
 * task while a webhook arrived, the server would fail the task and the operator would see an error for a
 * cancel that happened. Cancels are rare; the three events they cost do not matter.
 */
const { cancelSession } = proxyActivities<Acts>(BANK_SETTLE);
const { getSession } = proxyLocalActivities<Acts>(BANK_READ);
const { taxpayerVerdict } = proxyLocalActivities<Acts>(TEMPORAL_READ);
const { beforeCreating } = proxyLocalActivities<RunActs>(TEMPORAL_READ);
/** The same local activity asked to create the session too: one attempt, then the separate steps. */
const { beforeCreating: lookUpOrCreate } = proxyLocalActivities<RunActs>(LOOKUP_THEN_CREATE);
const { sessionsFromWebhooks } = proxyLocalActivities<WebhookActs>(WEBHOOK_CHECK);

const HOUR = 3_600_000;
const DEFAULTS = {
  pollAfterMs: 60_000,
  confirmWindowMs: 4 * HOUR,
  confirmSafetyMarginMs: 15 * 60_000,
  creditConfirmationBusinessDays: 7,
  taxpayerCheckMaxAgeMs: 24 * HOUR,
};

const errorText = (err: unknown) => maskNumbers(err instanceof Error ? err.message : String(err));
/** The bank's code of a failed activity call (local activities may surface the ApplicationFailure itself). */
const bankFailure = (err: unknown): ApplicationFailure | undefined => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause : undefined;
};
const causeType = (err: unknown) => bankFailure(err)?.type ?? undefined;
/** Validators throw: the update is refused to its caller and leaves no trace in history. */
const valid = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

/**
 * One payout to one recipient, paid at most once whoever starts it: input and workflow id checked →
 * earlier runs of the reference settled with the bank → taxpayer check → bank session →
 * ready_to_confirm → (approval) → one confirm within the bank's 4-hour window → payment_finished →
 * (confirmation_payout or a return). docs/payouts.md describes every step and ending.
 */
export async function payoutWorkflow(raw: PayoutInput): Promise<PayoutStatus> {
  const parsed = parsePayoutInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  const { workflowId, runId, firstExecutionRunId } = workflowInfo();
  // The reference is the payout's identity: under any other id Temporal's one-run-per-id rule would
  // not stop a second payment of the same reference.
  const expectedId = payoutWorkflowId(input.request.reference);
  if (workflowId !== expectedId)
    throw invalidInput(
      `workflow id must be ${expectedId} for reference ${input.request.reference}, not ${workflowId}`,
    );

  const opts = { ...DEFAULTS, ...input.options };
  const { request } = input;
  const tracker = new PayoutTracker(input, { upsert: upsertSearchAttributes, now: iso });
  const sessionKey = `${workflowId}:${firstExecutionRunId}`;
  let verdict: TaxpayerVerdict | undefined;
  let cancelRequest: CancelCommand | undefined;
  /** A refusing verdict that came after the session was created: it is cancelled, the row rejected. */
  let lateRefusal: { code: string; reason: string } | undefined;
  let confirmSent = false;

  // TypeScript narrows `tracker.phase` after a comparison and keeps the narrowing across awaits, during which
  // session readings change it; reading through a function keeps each check honest.
  const phase = () => tracker.phase;
  const isFinal = () => tracker.status.timestamps.finished !== undefined;
  /** The policy an approval of this run is checked against: set when the worker says one is needed. */
  let approvalPolicy: PolicyView | undefined;
  /** Why this run may not pay at all (not in an approved batch's file): it ends rejected, no session. */
  let refusal: Extract<PayoutAuthorization, { kind: 'refused' }> | undefined;
  const applyAuthorization = (a: PayoutAuthorization | undefined) => {
    // Absent in histories recorded before approvals existed, and in a reconcile run that pays nothing.
    if (a?.kind === 'own_approval') {
      approvalPolicy = a.policy;
      tracker.status.approval = { ...tracker.status.approval!, required: true };
      tracker.note(`approval required: ${a.because}`);
    } else if (a?.kind === 'refused') refusal = a;
  };
  /** The validator's check: a forged, replayed or expired approval is refused before it reaches history. */
  const validApproval = (raw: unknown): SignedStatement => {
    const parsed = parseSignedStatement(raw);
    if (!parsed.ok) throw new Error(parsed.reason);
    if (!tracker.status.approval!.required) return parsed.value; // answered "not required" below
    if (!approvalPolicy) throw new Error('the payout has not read the policy yet: try again in a moment');
    const checked = checkPayoutApproval(
      approvalPolicy,
      parsed.value,
      { reference: request.reference, runId, amount: request.amount },
      workflowNow(),
    );
    if (!checked.ok) throw new Error(checked.reason);
    return parsed.value;
  };
  const approve = (signed: SignedStatement): string => {
    const by = signed.statement.person;
    const approval = tracker.status.approval!;
    if (!approval.required) return 'approval is not required for this payout';
    if (approval.approvedBy) return `already approved by ${approval.approvedBy}`;
    if (isFinal()) return `nothing is awaiting approval: the payout ended ${tracker.status.state}`;
    if (cancelRequest) return `nothing is awaiting approval: cancelled by ${cancelRequest.by}`;
    tracker.status.approval = { ...approval, approvedBy: by, approvedAt: iso() };
    return tracker.status.state === 'awaiting_approval'
      ? 'approved'
      : 'approved; it is confirmed when the bank is ready';
  };
  const cancel = (req: CancelCommand): string => {
    if (cancelRequest) return `already cancelled by ${cancelRequest.by}`;
    if (isFinal()) return `nothing to cancel: the payout ended ${tracker.status.state}`;
    if (confirmSent) return `too late to cancel: the payout was confirmed (${tracker.status.state})`;
    cancelRequest = req;
    tracker.note(`cancel requested by ${req.by}${req.reason ? `: ${req.reason}` : ''}`);
    return 'cancel requested: the payout is cancelled before any money moves';
  };
  const ignored = (what: string, r: Result<unknown>) => {
    if (!r.ok) tracker.note(`ignored a malformed ${what} signal: ${r.message}`);
    return !r.ok;
  };

  setHandler(payoutStatusQuery, () => tracker.status);
  setHandler(bankEventSignal, (evt) => {
    const r = parseBankEvent(evt);
    if (!ignored('bankEvent', r) && r.ok) tracker.applyEvent(r.value);
  });
  setHandler(taxpayerVerdictSignal, (v) => {
    const ok = v && typeof v.isProfessionalIncomeTaxpayer === 'boolean' && typeof v.isLinked === 'boolean';
    if (ok) verdict ??= v;
    else tracker.note('ignored a malformed taxpayerVerdict signal');
  });
  setHandler(approveSignal, (a) => {
    const parsed = parseSignedStatement(a);
    if (!parsed.ok) return tracker.note(`ignored a malformed approve signal: ${parsed.reason}`);
    try {
      const signed = validApproval(a);
      tracker.note(`approve signal from ${signed.statement.person}: ${approve(signed)}`);
    } catch (err) {
      tracker.note(`ignored an approve signal: ${(err as Error).message}`);
    }
  });
  setHandler(cancelSignal, (c) => {
    const r = parseCancellation(c);
    if (!ignored('cancel', r) && r.ok) cancel(r.value);
  });
  setHandler(approvePayoutUpdate, (a) => approve(validApproval(a)), {
    validator: (a) => void validApproval(a),
  });
  setHandler(cancelPayoutUpdate, (c) => cancel(valid(parseCancellation(c))), {
    validator: (c) => void valid(parseCancellation(c)),
  });

  /** Ends the run as Failed with a clean not-paid outcome, so the reference may be paid by a later run. */
  const finish = (state: NotPaidState, code: string, reason: string): never => {
    const status = tracker.fail(state, { code, reason: maskNumbers(reason) });
    tracker.publish();
    throw ApplicationFailure.create({
      message: `payout ${state}: ${status.failure!.reason}`,
      type: notPaidType(state),
      details: [status],
      nonRetryable: true,
    });
  };
  const needsAttention = (reason: string): never => {
    const full = `${maskNumbers(reason)}; run \`payrun payout reconcile ${request.reference}\` to ask the bank`;
    const status = tracker.fail('needs_attention', { code: 'needs_attention', reason: full });
    tracker.publish(true); // operators search for these
    throw ApplicationFailure.create({
      message: full,
      type: NEEDS_ATTENTION_TYPE,
      details: [status],
      nonRetryable: true,
    });
  };
  const cancelledBeforeMoney = () =>
    lateRefusal
      ? finish('rejected', lateRefusal.code, `${lateRefusal.reason}; its session was cancelled`)
      : finish('cancelled', 'cancelled_by_operator', `cancelled by ${cancelRequest!.by}`);

  /** Reads our own session from the bank: the one source of money state. */
  const readSession = async (why: string): Promise<boolean> => {
    try {
      tracker.applySession(await getSession({ sessionId: tracker.sessionId! }), why);
      return true;
    } catch (err) {
      tracker.note(`session/status (${why}) failed: ${errorText(err)}`);
      return false;
    }
  };

  /**
   * One chain of poll timers per payout, started when the session exists: each fires `pollAfterMs`,
   * then twice as long (up to an hour) after the last, and marks a poll due. A payout whose webhooks
   * arrive in time finishes before the first fires, so it costs one TimerStarted and no cancellations.
   */
  let pollDue = false;
  let polling: 'not_yet' | 'on' | 'off' = 'not_yet';
  const startPolling = () => {
    if (polling !== 'not_yet') return;
    polling = 'on';
    void (async () => {
      for (let interval = opts.pollAfterMs; polling === 'on'; interval = Math.min(interval * 2, HOUR)) {
        await sleep(interval);
        pollDue = polling === 'on';
      }
    })();
  };

  /**
   * Believes the signed webhooks a signal brought once the worker has checked the bank's signature (no
   * partner call); any it cannot believe, or a failed check, falls back to reading session/status.
   */
  const checkWebhooks = async (): Promise<void> => {
    const webhooks = tracker.takeUnchecked();
    try {
      tracker.applyChecked(await sessionsFromWebhooks({ sessionId: tracker.sessionId!, webhooks }));
    } catch (err) {
      tracker.note(`checking a webhook's signature failed: ${errorText(err)}`);
      tracker.nudged = true;
    }
  };

  /**
   * Waits until `done`: a signed bank event is believed once its signature checks out; any other bank
   * event only prompts a read of session/status; a due poll reads it too.
   */
  const awaitBank = async (done: () => boolean, until = Infinity): Promise<boolean> => {
    for (;;) {
      if (tracker.unchecked.length > 0) await checkWebhooks();
      if (tracker.nudged || pollDue) {
        const polled = !tracker.nudged;
        tracker.nudged = pollDue = false;
        if (
          (await readSession(polled ? 'poll: no webhook in time' : 'after a bank event')) &&
          polled &&
          done()
        )
          tracker.note('recovered by polling session/status (webhook late or lost)');
      }
      if (done()) return true;
      const wake = () => tracker.nudged || pollDue || tracker.unchecked.length > 0;
      if (until === Infinity) await condition(wake);
      else {
        const left = until - workflowNow();
        if (left <= 0 || !(await condition(wake, left))) return done();
      }
    }
  };

  const taxpayerAsk = {
    taxReference: request.recipient.taxReference,
    replyTo: workflowId,
    maxAgeMs: opts.taxpayerCheckMaxAgeMs,
  };

  // A batch waiting for this payout without being its parent asks to be told when it settles.
  let reportTo: string | undefined;
  let told = false;
  setHandler(reportToSignal, (r) => {
    if (typeof r?.batchId === 'string' && BATCH_ID_PATTERN.test(r.batchId)) reportTo ??= r.batchId;
    else tracker.note('ignored a malformed reportTo signal');
  });
  /** A nudge only: the batch reads this payout's record from the server before it counts the row. */
  const tellBatch = async (to: string | undefined) => {
    if (!to || told) return;
    told = true;
    await getExternalWorkflowHandle(to)
      .signal(payoutSettledSignal, { reference: request.reference })
      .catch(() => undefined); // the batch has finished: nobody waits
  };

  const createInput = { workflowId, runKey: firstExecutionRunId, request, batchId: input.batchId };
  const taxpayerStatus = (v: TaxpayerVerdict) => ({
    isProfessionalIncomeTaxpayer: v.isProfessionalIncomeTaxpayer,
    isLinked: v.isLinked,
    checkedAt: v.checkedAt,
  });
  const confirmDeadlineFrom = (t: number) => t + opts.confirmWindowMs - opts.confirmSafetyMarginMs;
  const sessionCreated = (created: PaymentSession) => {
    tracker.status.timestamps.sessionCreated = iso();
    tracker.applySession(created, 'session created');
    tracker.publish();
    startPolling();
  };

  try {
    return await run();
  } finally {
    await tellBatch(reportTo);
  }

  /** 0. At most once whoever starts it: every earlier run of this reference is settled with the bank. */
  async function run(): Promise<PayoutStatus> {
    const asksVerdict = request.selfEmployed && !opts.reconcileOnly;
    const authorize = {
      batchId: input.batchId,
      request,
      ...(input.options?.requireApproval ? { requested: true } : {}),
    };
    const ask = {
      workflowId,
      currentRunId: runId,
      ...(asksVerdict ? { taxpayer: taxpayerAsk } : {}),
      ...(opts.reconcileOnly ? {} : { authorize }),
    };
    // Usually nothing stands in the session's way, and one attempt of the look-up creates it too. Anything
    // else — a refusal, a failed attempt, a verdict or a cancel already here — takes the separate steps
    // below, as every payout did before (and as histories recorded before replay: no `created`).
    const deadlineFrom = workflowNow();
    let before: BeforeCreating | undefined;
    if (!opts.reconcileOnly && cancelRequest === undefined && verdict === undefined) {
      try {
        before = await lookUpOrCreate({ ...ask, createIfClear: createInput });
      } catch (err) {
        if (isCancellation(err)) throw err;
        tracker.note(`creating the session with the look-up failed (${errorText(err)}); trying step by step`);
      }
      if (before?.created) {
        applyAuthorization(before.authorization);
        return payCreated(before.created, before.verdict, deadlineFrom);
      }
    }
    before ??= await beforeCreating(ask);
    applyAuthorization(before.authorization);
    verdict ??= before.verdict;
    const earlier = before.earlier;
    const paidBefore = await settleEarlierRuns(earlier);
    if (paidBefore) {
      const differences = referenceDifferences(paidBefore, tracker.status);
      const by = paidBefore.batchId ? `batch ${paidBefore.batchId}` : 'a payout started outside any batch';
      throw ApplicationFailure.create({
        type: differences.length ? REFERENCE_CONFLICT_TYPE : ALREADY_PAID_TYPE,
        message: differences.length
          ? `reference ${request.reference} was already paid by ${by} to another payee or amount (differs: ${differences.join(', ')}); nothing paid`
          : `reference ${request.reference} was already paid by ${by}; not paid again`,
        details: [paidBefore],
        nonRetryable: true,
      });
    }
    if (opts.reconcileOnly)
      return finish(
        'failed',
        'reconciled_not_paid',
        earlier.length
          ? 'reconciled with the bank: no earlier run of this reference moved money; it may be paid again'
          : 'nothing to reconcile: no earlier run of this reference',
      );
    if (refusal) return finish('rejected', refusal.code, refusal.reason);
    const reserved = before.reservation;
    if (reserved && !reserved.ok)
      return finish(
        'limit_exceeded',
        'limit_exceeded',
        reserved.reason ?? `would pass the ${reserved.limit} limit`,
      );

    return settled(pay());
  }

  /** The session already exists: created with the look-up, after the verdict it read allowed it. */
  async function payCreated(
    created: PaymentSession,
    checked: TaxpayerVerdict | undefined,
    deadlineFrom: number,
  ): Promise<PayoutStatus> {
    if (request.selfEmployed) {
      verdict ??= checked;
      tracker.status.taxpayer = taxpayerStatus(verdict!);
      // A verdict signalled while the look-up ran may refuse what it allowed: no confirm, the session is cancelled.
      lateRefusal = verdictRefusal(verdict!);
      if (lateRefusal) {
        tracker.note(`a taxpayer verdict received meanwhile refuses the recipient (${lateRefusal.code})`);
        cancelRequest ??= { by: 'the taxpayer check', reason: lateRefusal.reason };
      }
    }
    sessionCreated(created);
    return settled(awaitAndConfirm(confirmDeadlineFrom(deadlineFrom)));
  }

  async function settled(paying: Promise<PayoutStatus>): Promise<PayoutStatus> {
    try {
      return await paying;
    } catch (err) {
      // Our own endings pass through; a bank call that kept failing after the session existed does not.
      const ending = err instanceof ApplicationFailure && err.type?.startsWith('payout_');
      if (!ending && (err instanceof ActivityFailure || bankFailure(err)))
        return needsAttention(`the payout could not be settled: ${errorText(err)}`);
      throw err;
    }
  }

  /** The earlier run that paid this reference, if any; earlier runs in doubt are asked about at the bank. */
  async function settleEarlierRuns(runs: EarlierPayoutRun[]): Promise<PayoutStatus | undefined> {
    const paid = runs.find((r) => r.verdict === 'paid' && r.status);
    if (paid) return paid.status;
    for (const run of runs.filter((r) => r.verdict === 'in_doubt' || r.verdict === 'running')) {
      if (!run.status)
        return needsAttention(`an earlier run ${run.runId} ended ${run.closeStatus} and cannot be read`);
      const sessionId = run.status.bank.sessionId;
      // Money moves only on session/confirm with the session's id: a run that never learned one never confirmed.
      if (!sessionId) {
        tracker.note(
          `earlier run ${run.runId} (${run.closeStatus}) created no known session: it moved no money`,
        );
        continue;
      }
      tracker.setState('reconciling');
      for (let interval = opts.pollAfterMs; ; interval = Math.min(interval * 2, HOUR)) {
        const reading = readPayoutSession(await getSession({ sessionId }));
        if (reading.phase === 'succeeded') {
          tracker.note(`earlier run ${run.runId}: the bank paid session ${sessionId}`);
          return {
            ...run.status,
            state: PAID_STATES.includes(run.status.state) ? run.status.state : 'succeeded',
          };
        }
        if (reading.phase === 'failed') {
          tracker.note(
            `earlier run ${run.runId}: session ${sessionId} ended ${reading.errorCode}; no money moved`,
          );
          break;
        }
        if (reading.phase === 'ready_to_confirm') {
          // Still unconfirmed: cancelling it is what makes "not paid" final (the bank orders cancel and confirm).
          try {
            await cancelSession({ sessionId, key: `${workflowId}:reconcile:${run.runId}` });
          } catch (err) {
            tracker.note(
              `cancelling earlier session ${sessionId} failed (${causeType(err) ?? errorText(err)}); reading it again`,
            );
          }
          continue;
        }
        await sleep(interval); // confirmed and in progress at the bank: wait for its result
      }
    }
    return undefined;
  }

  async function pay(): Promise<PayoutStatus> {
    // 1. The recipient must be a professional income taxpayer who linked us; otherwise no session at all.
    tracker.setState(request.selfEmployed ? 'checking_taxpayer' : 'creating_session');
    if (request.selfEmployed) {
      // Asked in beforeCreating; the answer comes as a signal. Ask again if none comes (a lost request).
      while (!verdict && !cancelRequest) {
        if (await condition(() => verdict !== undefined || cancelRequest !== undefined, '10 minutes')) break;
        verdict = await taxpayerVerdict(taxpayerAsk);
      }
      if (cancelRequest) return cancelledBeforeMoney();
      tracker.status.taxpayer = taxpayerStatus(verdict!);
      const refusal = verdictRefusal(verdict!);
      if (refusal) finish('rejected', refusal.code, refusal.reason);
      tracker.setState('creating_session');
    }
    if (cancelRequest) return cancelledBeforeMoney();

    // 2. Create the payout; the deadline counts from before the call, so it is never later than the bank's.
    const deadlineFrom = workflowNow();
    try {
      sessionCreated(await createPayoutSession(createInput));
    } catch (err) {
      // No session id came back, so nothing of ours can ever confirm one: this run moved no money.
      const code = causeType(err) ?? 'create_failed';
      const words = bankFailure(err)?.message ?? errorText(err);
      return finish('failed', code, `the bank refused the payout: ${words}`);
    }
    return awaitAndConfirm(confirmDeadlineFrom(deadlineFrom));
  }

  /** Steps 3 to 7, once the bank session exists. */
  async function awaitAndConfirm(confirmDeadline: number): Promise<PayoutStatus> {
    // 3. Wait for the bank to be ready for our confirmation (a cancel, too, must wait for it).
    tracker.setState('awaiting_ready_to_confirm');
    await awaitBank(() => phase() !== 'processing');
    if (phase() === 'failed')
      return finish('failed', tracker.status.failure!.code, tracker.status.failure!.reason);
    if (phase() === 'ready_to_confirm') tracker.status.timestamps.readyToConfirm ??= iso();

    // 4. Approval (when asked) and cancellation, both only before the confirm window closes.
    if (tracker.status.approval!.required && tracker.phase === 'ready_to_confirm') {
      tracker.setState('awaiting_approval');
      tracker.publish(true); // what waits for a person is what operators search for
      const left = confirmDeadline - workflowNow();
      const decided =
        left > 0 &&
        (await condition(() => !!tracker.status.approval!.approvedBy || cancelRequest !== undefined, left));
      if (!decided) {
        await cancelSession({ sessionId: tracker.sessionId!, key: sessionKey });
        return finish(
          'expired',
          'approval_timeout',
          'no approval before the bank’s confirm window closed; session cancelled',
        );
      }
    }
    if (cancelRequest && tracker.phase === 'ready_to_confirm') {
      await cancelSession({ sessionId: tracker.sessionId!, key: sessionKey });
      return cancelledBeforeMoney();
    }

    // 5. Confirm: the one step that moves money; the bank sees one key however often it is retried.
    // A failed confirm is not a failed payout: its answer may be lost after the bank applied it, so
    // the session decides — still pending means try again, anything else means it went through.
    if (tracker.phase === 'ready_to_confirm') {
      tracker.setState('confirming');
      confirmSent = true;
      for (;;) {
        try {
          await confirmSession({ sessionId: tracker.sessionId!, key: sessionKey });
          tracker.status.timestamps.confirmed = iso();
          break;
        } catch (err) {
          const type = causeType(err);
          if (type === 'confirm_timeout')
            return finish('expired', 'confirm_timeout', 'the bank’s 4-hour confirm window had closed');
          tracker.note(`confirm failed (${type ?? errorText(err)}); reading session/status`);
          const session = await getSession({ sessionId: tracker.sessionId! });
          tracker.applySession(session, 'session/status after a failed confirm');
          if (firstPayout(session)?.status !== 'pending') {
            tracker.status.timestamps.confirmed ??= iso();
            break;
          }
          if (workflowNow() > confirmDeadline + opts.confirmSafetyMarginMs) {
            await cancelSession({ sessionId: tracker.sessionId!, key: sessionKey });
            return finish(
              'expired',
              type ?? 'confirm_failed',
              'confirm kept failing until the window closed',
            );
          }
          await sleep('10 seconds');
        }
      }
    }

    // 6. The result, as session/status tells it.
    tracker.setState('awaiting_result');
    await awaitBank(() => phase() === 'succeeded' || phase() === 'failed');
    if (phase() === 'failed')
      return finish('failed', tracker.status.failure!.code, tracker.status.failure!.reason);
    tracker.setState('succeeded', 'finished');
    // The money is settled; a credit confirmation or a return is announced by the bank, not polled for.
    polling = 'off';
    pollDue = false;
    // The batch frees this row's slot now, not days later when the optional credit confirmation comes.
    if (opts.awaitCreditConfirmation) await tellBatch(reportTo ?? input.batchId);

    // 7. Optionally, the recipient bank's confirmation and a possible return (seen in session/status).
    if (opts.awaitCreditConfirmation) {
      const until =
        opts.creditConfirmationWindowMs !== undefined
          ? workflowNow() + opts.creditConfirmationWindowMs
          : addBusinessDays(workflowNow(), opts.creditConfirmationBusinessDays);
      const credit = await awaitBank(() => !!tracker.credited || !!tracker.returnedAt, until);
      if (credit && tracker.credited) {
        tracker.status.timestamps.credited = iso();
        tracker.setState('credited' satisfies PayoutState);
        tracker.note(`confirmation_payout: ${tracker.credited.event} (${tracker.credited.eventDate})`);
        await awaitBank(() => !!tracker.returnedAt, until);
      } else if (!credit) {
        tracker.note(`no confirmation_payout within ${opts.creditConfirmationBusinessDays} business days`);
      }
    }
    if (tracker.returnedAt) {
      tracker.status.timestamps.returned = tracker.returnedAt;
      tracker.setState('returned');
    }
    tracker.publish();
    return tracker.status;
  }
}
