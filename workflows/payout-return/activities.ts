import { proxyActivities } from '@temporalio/workflow';
import type { createPayoutReturnActivities } from '../../activities/payout-return';
import { RETURN_EVIDENCE, RETURN_WRITES } from '../shared/activity-options';

// The return's activities: checking the bank's word (its key, or its statement read again), then the
// writes it makes, each safe to repeat: the batch's report, the receipt, the ledger's take-back.

type Acts = ReturnType<typeof createPayoutReturnActivities>;

/** A statement read from the bank may fail for a while: a handful of attempts, then the evidence is refused. */
export const { verifyReturnEvidence } = proxyActivities<Acts>(RETURN_EVIDENCE);

/** Writes that must happen once the bank's word is held: tried until they are done. */
export const { findReturnedPayout, markPayoutReturned, markReceiptToAnnul, takeBackIncome } =
  proxyActivities<Acts>(RETURN_WRITES);
