import { proxyActivities } from '@temporalio/workflow';
import type { createReconciliationActivities } from '../../activities/reconciliation';
import {
  RECONCILIATION_ACCOUNTS,
  RECONCILIATION_LIST,
  RECONCILIATION_STATEMENT,
  RECONCILIATION_STORE,
} from '../shared/activity-options';
import type { StatementWait } from './contract';

// The reconciliation workflows' activities: the bank's statement, the day's payouts, the store.

type Acts = ReturnType<typeof createReconciliationActivities>;

export const { listDayPayouts } = proxyActivities<Acts>(RECONCILIATION_LIST);
// The store until it answers; a refusal (of a resolution) is a non-retryable failure, final at once.
export const {
  matchReconciliationDay,
  recordStatementUnavailable,
  dueReconciliationDays,
  resolveSignedDifference,
} = proxyActivities<Acts>(RECONCILIATION_STORE);
export const { reconciliationAccounts } = proxyActivities<Acts>(RECONCILIATION_ACCOUNTS);

/**
 * The statement is retried while the bank says it is not ready or fails, for about maxWaitMs: as many
 * attempts as the backoff fits in it (so the last failure, not a bare timeout, says why the day waits).
 */
export const statementFetcher = (wait: StatementWait = {}) => {
  const initial = wait.initialIntervalMs ?? 60_000;
  const maximum = wait.maximumIntervalMs ?? 15 * 60_000;
  const total = wait.maxWaitMs ?? 6 * 3600_000;
  let attempts = 1;
  for (let slept = 0, next = initial; slept < total; next = Math.min(next * 2, maximum), attempts++)
    slept += next;
  return proxyActivities<Acts>({
    ...RECONCILIATION_STATEMENT,
    retry: {
      initialInterval: initial,
      backoffCoefficient: 2,
      maximumInterval: maximum,
      maximumAttempts: attempts,
    },
  }).fetchStatement;
};
