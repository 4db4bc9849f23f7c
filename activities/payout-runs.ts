import type { Client } from '@temporalio/client';
import { earlierPayoutRuns } from '../src/batch/lookup';
import type { EarlierPayoutRun } from '../workflows/contracts/payout';
import type { TaxpayerVerdict } from '../workflows/contracts/taxpayer';
import { askTaxpayerVerdict, type TaxpayerAsk } from './taxpayer';

/** What the payout workflow asks the Temporal server before it creates a bank session. */
export function createPayoutRunActivities(deps: { client: Client; taskQueue: string }) {
  return {
    /**
     * Both things a payout must know before it creates a session, in one local activity (one marker in
     * history): every other run of its workflow id and what each did with the money (at most once
     * whoever starts it), and, for a self-employed recipient, a fresh taxpayer verdict or a request for one.
     */
    async beforeCreating(input: {
      workflowId: string;
      currentRunId: string;
      taxpayer?: TaxpayerAsk;
    }): Promise<{ earlier: EarlierPayoutRun[]; verdict?: TaxpayerVerdict }> {
      const [earlier, verdict] = await Promise.all([
        earlierPayoutRuns(deps.client, input.workflowId, input.currentRunId),
        input.taxpayer ? askTaxpayerVerdict(deps.client, deps.taskQueue, input.taxpayer) : undefined,
      ]);
      return { earlier, ...(verdict ? { verdict } : {}) };
    },
  };
}
