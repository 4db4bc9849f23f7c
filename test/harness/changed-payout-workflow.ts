import { sleep } from '@temporalio/workflow';
import type { PayoutInput } from '../../workflows/payout/contract';
import { payoutWorkflow as currentPayoutWorkflow } from '../../workflows/payout/workflow';

/**
 * The payout workflow with one careless change (a timer before its first step), for the replay test
 * to prove that a change of commands fails against the recorded histories instead of slipping through.
 */
export async function payoutWorkflow(input: PayoutInput) {
  await sleep(1);
  return currentPayoutWorkflow(input);
}
