import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { createBankActivities } from '../../activities/bank';
import type { createPayoutRunActivities } from '../../activities/payout-runs';
import type { createWebhookActivities } from '../../activities/webhooks';
import type { createScheduledActivities } from '../../activities/scheduled';
import {
  BANK_READ,
  BANK_SETTLE,
  BANK_WRITE_ONCE,
  LOOKUP_THEN_CREATE,
  TEMPORAL_READ,
  WEBHOOK_CHECK,
} from '../shared/activity-options';
import { maskNumbers } from './ending';

// The payout workflow's activities, each with its timeouts and retry policy (workflows/shared/activity-options.ts).

type Acts = ReturnType<typeof createBankActivities>;
type RunActs = ReturnType<typeof createPayoutRunActivities>;
type WebhookActs = ReturnType<typeof createWebhookActivities>;

export const { createPayoutSession } = proxyLocalActivities<Acts>(BANK_WRITE_ONCE);
export const { confirmSession } = proxyLocalActivities<Acts>(BANK_SETTLE);
/**
 * A regular activity, not a local one: a cancel follows an operator's Update, and a local activity would
 * hold that Update's workflow task open until the bank answered — if the workflow then closed in the same
 * task while a webhook arrived, the server would fail the task and the operator would see an error for a
 * cancel that happened. Cancels are rare; the three events they cost do not matter.
 */
export const { cancelSession } = proxyActivities<Acts>(BANK_SETTLE);
export const { getSession } = proxyLocalActivities<Acts>(BANK_READ);
export const { taxpayerVerdict } = proxyLocalActivities<Acts>(TEMPORAL_READ);
export const { beforeCreating } = proxyLocalActivities<RunActs>(TEMPORAL_READ);
/** The same local activity asked to create the session too: one attempt, then the separate steps. */
export const { beforeCreating: lookUpOrCreate } = proxyLocalActivities<RunActs>(LOOKUP_THEN_CREATE);
export const { sessionsFromWebhooks } = proxyLocalActivities<WebhookActs>(WEBHOOK_CHECK);
/** The same check asked to send the confirm too: a confirm's limits, longer than the bank client's deadline. */
export const { sessionsFromWebhooks: checkThenConfirm } = proxyLocalActivities<WebhookActs>(BANK_SETTLE);
/** A scheduled row's checks when it wakes (stop-list, cap, deposit): reads, so retried until answered. */
export const { wakeChecks } =
  proxyLocalActivities<ReturnType<typeof createScheduledActivities>>(TEMPORAL_READ);

export const errorText = (err: unknown) => maskNumbers(err instanceof Error ? err.message : String(err));
/** The bank's code of a failed activity call (local activities may surface the ApplicationFailure itself). */
export const bankFailure = (err: unknown): ApplicationFailure | undefined => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause : undefined;
};
export const causeType = (err: unknown) => bankFailure(err)?.type ?? undefined;
