import { proxyActivities } from '@temporalio/workflow';
import type { createBatchActivities } from '../../activities/batch';
import { BATCH_REPORT, BATCH_STORE } from '../shared/activity-options';

// The batch workflow's activities: the batch store (and the bank's deposit), and the report at the end.

type Acts = ReturnType<typeof createBatchActivities>;

export const {
  openBatch,
  loadBatchChunk,
  checkDeposit,
  authorizeBatch,
  recordBatchDecision,
  recordBatchResults,
  /** Reads the server's record of a payout this run waits for without being its parent. */
  checkPayout,
} = proxyActivities<Acts>(BATCH_STORE);
export const { finishBatch } = proxyActivities<Acts>(BATCH_REPORT);
