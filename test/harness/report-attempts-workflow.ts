/**
 * A test-only workflow: the report activity alone, with a heartbeat timeout short enough that a test
 * can make the server give up on an attempt and start the next while the first still runs (issue 38).
 * payrun's own batch uses BATCH_REPORT (2 minutes): the activity is the same, only the wait shorter.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BatchFinal } from '../../workflows/batch/contract';

const { finishBatch } = proxyActivities<{
  finishBatch(input: { batchId: string; cancelled: boolean }): Promise<BatchFinal>;
}>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '100 ms', backoffCoefficient: 1, maximumAttempts: 6 },
});

export async function reportAttempts(batchId: string): Promise<BatchFinal> {
  return finishBatch({ batchId, cancelled: true });
}
