import {
  condition,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { payoutSleepSignal } from '../batch/contract';
import { payOnWakeMs } from '../../src/domain';
import type { BeforeCreating } from '../../activities/payout-runs';
import type { WakeRefusal } from '../../activities/scheduled';
import type { PayoutRunData } from './state';
import type { PayoutTracker } from './tracker';
import { beforeCreating, wakeChecks } from './activities';
import { iso, workflowNow } from '../shared/time';
import { slotGrantedSignal, type PayoutInput } from './contract';

/**
 * A sleeping row's state is written to its PayrunState search attribute (one upsert), so Temporal UI's
 * `PayrunState = "scheduled"` and the worker's payrun_payouts_scheduled gauge find it; rows that slept
 * before this replay without it.
 */
const SCHEDULED_STATE_SEARCHABLE = 'payout-scheduled-state-searchable';

/** How long a woken row waits for its batch's answer before it asks for a place again. */
const SLOT_ASKED_AGAIN_MS = 10 * 60_000;

/** What the scheduled part of a payout needs of its run (workflows/payout/run.ts). */
export interface ScheduledRun {
  input: PayoutInput;
  state: PayoutRunData;
  tracker: PayoutTracker;
  /** The same look-up every payout makes first, without a session: its approval and its reservation. */
  authorize: NonNullable<Parameters<typeof beforeCreating>[0]['authorize']>;
  /** Applies who allowed the payout, as the run does for its own look-up. */
  authorized: (before: BeforeCreating) => void;
  /** Ends the run not paid (never returns). */
  end: (refusal: WakeRefusal) => never;
  /** Ends the run cancelled before any money moved (never returns). */
  cancelled: () => never;
}

/**
 * A row with a pay_on date (issue 42), before anything else a payout does: its approval is checked and
 * its amount reserved in the recipient's ledger now, so other batches see the place it holds; then it
 * sleeps on one durable timer until 00:00 Moscow time of that day, woken early only by a cancel (which
 * ends it not paid, and the ledger releases what it held); when it wakes it checks the stop-list, the cap
 * in the year it wakes in and the deposit, and returns for the usual path, which checks its approval under
 * the policy of that day and the taxpayer status afresh. A row with no pay_on, or whose day has come,
 * never comes here: it takes exactly the path it always took.
 */
export async function sleepUntilPayOn(run: ScheduledRun): Promise<void> {
  const wakeAt = payOnWakeMs(run.input.request.payOn!);
  if (wakeAt <= workflowNow()) return;
  // Asked before the local activity below: asked after it, in the same workflow task, the marker failed
  // to replay (TMPRL1100 "patch marker encountered … no corresponding change command" on a query).
  const searchable = patched(SCHEDULED_STATE_SEARCHABLE);
  const { workflowId, runId } = workflowInfo();
  const held = await beforeCreating({ workflowId, currentRunId: runId, authorize: run.authorize });
  run.authorized(held);
  if (run.state.refusal) run.end({ state: 'rejected', ...run.state.refusal });
  const reserved = held.reservation;
  if (reserved && !reserved.ok)
    run.end({
      state: 'limit_exceeded',
      code: 'limit_exceeded',
      reason: reserved.reason ?? `would pass the ${reserved.limit} limit`,
    });

  run.tracker.setState('scheduled');
  run.tracker.status.timestamps.scheduledFor = iso(wakeAt);
  run.tracker.note(`scheduled for ${run.input.request.payOn} (00:00 Moscow time); its place is reserved`);
  if (searchable) run.tracker.publish(true);
  const cancelled = () => run.state.cancelRequest !== undefined;
  const batch = workflowInfo().parent?.workflowId;
  const tell = (asleep: boolean) =>
    batch === undefined || batch !== run.input.batchId
      ? Promise.resolve(false)
      : getExternalWorkflowHandle(batch)
          .signal(payoutSleepSignal, { reference: run.input.request.reference, asleep })
          .then(
            () => true,
            () => false, // the batch is not running: no window to keep to
          );
  await tell(true);
  if (await condition(cancelled, wakeAt - workflowNow())) run.cancelled();

  // Rows waking together keep to the batch's in-flight limit: a place is asked for, and asked again
  // now and then (a batch that continued as new meanwhile did not carry the queue).
  let granted = false;
  setHandler(slotGrantedSignal, () => void (granted = true));
  while (!granted && !cancelled() && (await tell(false)))
    await condition(() => granted || cancelled(), SLOT_ASKED_AGAIN_MS);
  if (cancelled()) run.cancelled();

  run.tracker.status.timestamps.woke = iso();
  const refusal = await wakeChecks({ workflowId, runId, request: run.input.request });
  if (refusal) run.end(refusal);
  if (cancelled()) run.cancelled();
  run.tracker.setState(run.input.request.selfEmployed ? 'checking_taxpayer' : 'creating_session');
}
