import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createPayoutReturnActivities } from '../../activities/payout-return';
import type { createRecipientActivities } from '../../activities/recipient';
import {
  LEDGER_PROOF,
  LEDGER_PROOF_TASK,
  LEDGER_READS,
  SELF_EMPLOYED_LINK,
} from '../shared/activity-options';

// The ledger's activities: reads of payouts' outcomes and of its previous run, the bank's link request,
// and the proof of a reservation (a local activity in ledgers recorded before it became a task).

type Acts = ReturnType<typeof createRecipientActivities>;

export const { payoutOutcomes, previousLedger } = proxyActivities<Acts>(LEDGER_READS);
/** A person asking waits for the answer: a few minutes of attempts, then the error. */
export const { requestSelfEmployedLink } = proxyActivities<Acts>(SELF_EMPLOYED_LINK);
export const { provePayouts } = proxyLocalActivities<Acts>(LEDGER_PROOF);
export const { provePayouts: provePayoutsTask } = proxyActivities<Acts>(LEDGER_PROOF_TASK);
/** A take-back's proof: the session's return workflow, read on the server (workflows/payout-return/). */
export const { proveReturn } = proxyActivities<ReturnType<typeof createPayoutReturnActivities>>(LEDGER_READS);
