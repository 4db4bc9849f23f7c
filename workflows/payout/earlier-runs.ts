import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { readPayoutSession } from '../shared/bank-session';
import type { EarlierPayoutRun, PayoutStatus } from './contract';
import { cancelSession, causeType, errorText, getSession } from './activities';
import { PAID_STATES } from './contract';
import { ALREADY_PAID_TYPE, REFERENCE_CONFLICT_TYPE } from './ending';
import type { PayoutTracker } from './tracker';
import { referenceDifferences } from '../shared/reference';

// At most once whoever starts it: before a payout creates a session, every earlier run of its reference
// is settled with the bank.

const HOUR = 3_600_000;

export interface SettleContext {
  tracker: PayoutTracker;
  workflowId: string;
  pollAfterMs: number;
  /** Ends the run needing attention (it throws). */
  needsAttention: (reason: string) => never;
}

/** The earlier run that paid this reference, if any; earlier runs in doubt are asked about at the bank. */
export async function settleEarlierRuns(
  runs: EarlierPayoutRun[],
  ctx: SettleContext,
): Promise<PayoutStatus | undefined> {
  const { tracker } = ctx;
  const paid = runs.find((r) => r.verdict === 'paid' && r.status);
  if (paid) return paid.status;
  for (const run of runs.filter((r) => r.verdict === 'in_doubt' || r.verdict === 'running')) {
    if (!run.status) return ctx.needsAttention(unreadableRun(run, ctx.workflowId));
    const sessionId = run.status.bank.sessionId;
    // Money moves only on session/confirm with the session's id: a run that never learned one never confirmed.
    if (!sessionId) {
      tracker.note(
        `earlier run ${run.runId} (${run.closeStatus}) created no known session: it moved no money`,
      );
      continue;
    }
    tracker.setState('reconciling');
    for (let interval = ctx.pollAfterMs; ; interval = Math.min(interval * 2, HOUR)) {
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
          await cancelSession({ sessionId, key: `${ctx.workflowId}:reconcile:${run.runId}` });
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

/**
 * What a person checks at the bank for a run whose status cannot be replayed and that published no
 * session id: only the bank knows whether it created and confirmed a session in that time.
 */
function unreadableRun(run: EarlierPayoutRun, workflowId: string): string {
  const when = run.startedAt && run.closedAt ? ` between ${run.startedAt} and ${run.closedAt}` : '';
  return (
    `an earlier run ${run.runId} ended ${run.closeStatus}; its status cannot be replayed and it published no bank session. ` +
    `Check at the bank for payout sessions whose metadata payrun.workflow_id is ${workflowId}${when}: ` +
    `one that succeeded means the reference was paid; none, or only failed or cancelled ones, means it was not`
  );
}

/** Ends the run: its reference was paid by an earlier run (a conflict when to another payee or amount). */
export function alreadyPaid(reference: string, paidBefore: PayoutStatus, ours: PayoutStatus): never {
  const differences = referenceDifferences(paidBefore, ours);
  const by = paidBefore.batchId ? `batch ${paidBefore.batchId}` : 'a payout started outside any batch';
  throw ApplicationFailure.create({
    type: differences.length ? REFERENCE_CONFLICT_TYPE : ALREADY_PAID_TYPE,
    message: differences.length
      ? `reference ${reference} was already paid by ${by} to another payee or amount (differs: ${differences.join(', ')}); nothing paid`
      : `reference ${reference} was already paid by ${by}; not paid again`,
    details: [paidBefore],
    nonRetryable: true,
  });
}
