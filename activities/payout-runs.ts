import type { Client } from '@temporalio/client';
import { earlierPayoutRuns } from '../src/batch/lookup';

/** What the payout workflow asks the Temporal server about its own reference before it moves money. */
export function createPayoutRunActivities(client: Client) {
  return {
    /** Every other run of this payout's workflow id and what each did with the money. */
    async earlierPayoutRuns(input: { workflowId: string; currentRunId: string }) {
      return earlierPayoutRuns(client, input.workflowId, input.currentRunId);
    },
  };
}
