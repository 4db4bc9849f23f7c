import {
  ApplicationFailure,
  ActivityFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBankActivities } from '../activities/bank';
import {
  approveSignal,
  bankEventSignal,
  cancelSignal,
  payoutStatusQuery,
  taxpayerVerdictSignal,
  type PayoutInput,
  type PayoutState,
  type PayoutStatus,
  type TaxpayerVerdict,
} from './definitions';
import { firstPayout } from './bank-session';
import { PayoutTracker } from './payout-tracker';
import { addBusinessDays, iso, workflowNow } from './time';

type Acts = ReturnType<typeof createBankActivities>;

/** Creating a payout is retried only while the bank's 24-hour idempotency window surely holds. */
const { createPayoutSession } = proxyActivities<Acts>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '12 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
const { getSession, requestTaxpayerVerdict } = proxyActivities<Acts>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
});
const { confirmSession, cancelSession } = proxyActivities<Acts>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const HOUR = 3_600_000;
const DEFAULTS = {
  pollAfterMs: 60_000,
  confirmWindowMs: 4 * HOUR,
  confirmSafetyMarginMs: 15 * 60_000,
  creditConfirmationBusinessDays: 7,
  taxpayerCheckMaxAgeMs: 24 * HOUR,
};

/**
 * One payout to one recipient, paid at most once: taxpayer check → bank session → ready_to_confirm
 * → (approval) → confirm within the bank's 4-hour window → payment_finished → (confirmation_payout
 * or a return). Webhooks arrive as signals; session/status polls cover the ones that get lost.
 */
export async function payoutWorkflow(input: PayoutInput): Promise<PayoutStatus> {
  const opts = { ...DEFAULTS, ...input.options };
  const t = new PayoutTracker(input);
  const phase = () => t.phase; // read through a function: signals change it between awaits
  const { workflowId, firstExecutionRunId } = workflowInfo();
  let verdict: TaxpayerVerdict | undefined;
  let cancelRequest: { by: string; reason?: string } | undefined;

  setHandler(payoutStatusQuery, () => t.status);
  setHandler(bankEventSignal, (evt) => t.applyEvent(evt));
  setHandler(taxpayerVerdictSignal, (v) => {
    verdict ??= v;
  });
  setHandler(approveSignal, ({ by }) => {
    if (t.status.approval!.approvedBy) return;
    t.status.approval = { ...t.status.approval!, approvedBy: by, approvedAt: iso() };
  });
  setHandler(cancelSignal, (req) => {
    cancelRequest ??= req;
    t.note(`cancel requested by ${req.by}${req.reason ? `: ${req.reason}` : ''}`);
  });

  // Outcomes that moved no money end the workflow as Failed, so the reference may be paid by a later run.
  const finish = (state: PayoutState, code: string, reason: string): never => {
    const status = t.fail(state, { code, reason });
    throw ApplicationFailure.create({
      message: `payout ${state}: ${reason}`,
      type: `payout_${state}`,
      details: [status],
      nonRetryable: true,
    });
  };
  const cancelledBeforeMoney = () =>
    finish('cancelled', 'cancelled_by_operator', `cancelled by ${cancelRequest!.by}`);

  /** Waits for a webhook to satisfy `done`; when none comes in time, asks session/status instead. */
  const awaitBank = async (done: () => boolean, until = Infinity): Promise<boolean> => {
    let interval = opts.pollAfterMs;
    while (!done()) {
      const left = until - workflowNow();
      if (left <= 0) return false;
      if (await condition(done, Math.min(interval, left))) return true;
      try {
        t.applySession(await getSession({ sessionId: t.sessionId! }), 'session/status poll');
        if (done()) t.note('recovered by polling session/status (webhook late or lost)');
      } catch (err) {
        t.note(`session/status poll failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      interval = Math.min(interval * 2, HOUR);
    }
    return true;
  };

  // 1. The recipient must be a professional income taxpayer who linked us; otherwise no session at all.
  if (input.request.selfEmployed) {
    while (!verdict && !cancelRequest) {
      await requestTaxpayerVerdict({
        taxReference: input.request.recipient.taxReference,
        replyTo: workflowId,
        maxAgeMs: opts.taxpayerCheckMaxAgeMs,
      });
      await condition(() => verdict !== undefined || cancelRequest !== undefined, '10 minutes');
    }
    if (cancelRequest) return cancelledBeforeMoney();
    t.status.taxpayer = {
      isProfessionalIncomeTaxpayer: verdict!.isProfessionalIncomeTaxpayer,
      isLinked: verdict!.isLinked,
      checkedAt: verdict!.checkedAt,
    };
    if (verdict!.error)
      finish('rejected', verdict!.error, `the tax service check did not complete (${verdict!.error})`);
    if (!verdict!.isProfessionalIncomeTaxpayer)
      finish('rejected', 'not_self_employed', 'the recipient is not a professional income taxpayer');
    if (!verdict!.isLinked)
      finish('rejected', 'not_linked', 'the recipient has not linked payrun’s partner in the tax service');
  }
  if (cancelRequest) return cancelledBeforeMoney();

  // 2. Create the payout; the deadline counts from before the call, so it is never later than the bank's.
  t.setState('creating_session');
  const confirmDeadline = workflowNow() + opts.confirmWindowMs - opts.confirmSafetyMarginMs;
  const created = await createPayoutSession({
    workflowId,
    runKey: firstExecutionRunId,
    request: input.request,
    batchId: input.batchId,
  });
  t.status.timestamps.sessionCreated = iso();
  t.applySession(created, 'session created');

  // 3. Wait for the bank to be ready for our confirmation (a cancel, too, must wait for it).
  t.setState('awaiting_ready_to_confirm');
  await awaitBank(() => phase() !== 'processing');
  if (phase() === 'failed') return finish('failed', t.status.failure!.code, t.status.failure!.reason);
  if (t.phase === 'ready_to_confirm') t.status.timestamps.readyToConfirm ??= iso();

  // 4. Approval (when asked) and cancellation, both only before the confirm window closes.
  if (t.status.approval!.required && t.phase === 'ready_to_confirm') {
    t.setState('awaiting_approval');
    const left = confirmDeadline - workflowNow();
    const decided =
      left > 0 &&
      (await condition(() => !!t.status.approval!.approvedBy || cancelRequest !== undefined, left));
    if (!decided) {
      await cancelSession({ sessionId: t.sessionId!, key: `${workflowId}:${firstExecutionRunId}` });
      return finish(
        'expired',
        'approval_timeout',
        'no approval before the bank’s confirm window closed; session cancelled',
      );
    }
  }
  if (cancelRequest && t.phase === 'ready_to_confirm') {
    await cancelSession({ sessionId: t.sessionId!, key: `${workflowId}:${firstExecutionRunId}` });
    return cancelledBeforeMoney();
  }

  // 5. Confirm: the one step that moves money; the bank sees one key however often it is retried.
  // A failed confirm is not a failed payout: its answer may be lost after the bank applied it, so
  // the session decides — still pending means try again, anything else means it went through.
  if (t.phase === 'ready_to_confirm') {
    t.setState('confirming');
    for (;;) {
      try {
        await confirmSession({ sessionId: t.sessionId!, key: `${workflowId}:${firstExecutionRunId}` });
        t.status.timestamps.confirmed = iso();
        break;
      } catch (err) {
        const type =
          err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
            ? err.cause.type
            : undefined;
        if (type === 'confirm_timeout')
          return finish('expired', 'confirm_timeout', 'the bank’s 4-hour confirm window had closed');
        t.note(`confirm failed (${type ?? String(err)}); reading session/status`);
        const session = await getSession({ sessionId: t.sessionId! });
        t.applySession(session, 'session/status after a failed confirm');
        if (firstPayout(session)?.status !== 'pending') {
          t.status.timestamps.confirmed ??= iso();
          break;
        }
        if (workflowNow() > confirmDeadline + opts.confirmSafetyMarginMs) {
          await cancelSession({ sessionId: t.sessionId!, key: `${workflowId}:${firstExecutionRunId}` });
          return finish('expired', type ?? 'confirm_failed', 'confirm kept failing until the window closed');
        }
        await sleep('10 seconds');
      }
    }
  }

  // 6. The result.
  t.setState('awaiting_result');
  await awaitBank(() => phase() === 'succeeded' || phase() === 'failed');
  if (phase() === 'failed') return finish('failed', t.status.failure!.code, t.status.failure!.reason);
  t.setState('succeeded', 'finished');

  // 7. Optionally, the recipient bank's confirmation and a possible return.
  if (opts.awaitCreditConfirmation) {
    const until =
      opts.creditConfirmationWindowMs !== undefined
        ? workflowNow() + opts.creditConfirmationWindowMs
        : addBusinessDays(workflowNow(), opts.creditConfirmationBusinessDays);
    const credit = await condition(() => !!t.credited || !!t.returnedAt, Math.max(0, until - workflowNow()));
    if (credit && t.credited) {
      t.status.timestamps.credited = iso();
      t.setState('credited');
      t.note(`confirmation_payout: ${t.credited.event} (${t.credited.eventDate})`);
      await condition(() => !!t.returnedAt, Math.max(0, until - workflowNow()));
    } else if (!credit) {
      t.note(`no confirmation_payout within ${opts.creditConfirmationBusinessDays} business days`);
    }
  }
  if (t.returnedAt) {
    t.status.timestamps.returned = t.returnedAt;
    t.setState('returned');
  }
  return t.status;
}
