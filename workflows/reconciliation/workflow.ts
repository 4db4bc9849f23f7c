import { ActivityFailure, ApplicationFailure, executeChild, proxyActivities } from '@temporalio/workflow';
import type { createReconciliationActivities } from '../../activities/reconciliation';
import {
  RECONCILIATION_ACCOUNTS,
  RECONCILIATION_LIST,
  RECONCILIATION_STATEMENT,
  RECONCILIATION_STORE,
} from '../shared/activity-options';
import { addDays, moscowDay, parseDay } from './days';
import {
  reconciliationWorkflowId,
  type ReconcileDayInput,
  type ReconcileDayResult,
  type ReconcileDueInput,
  type ReconcileDueResult,
  type StatementWait,
} from './contract';
import { workflowNow } from '../shared/time';

type Acts = ReturnType<typeof createReconciliationActivities>;

const { listDayPayouts } = proxyActivities<Acts>(RECONCILIATION_LIST);
const { matchReconciliationDay, recordStatementUnavailable, dueReconciliationDays } =
  proxyActivities<Acts>(RECONCILIATION_STORE);
const { reconciliationAccounts } = proxyActivities<Acts>(RECONCILIATION_ACCOUNTS);

/**
 * The statement is retried while the bank says it is not ready or fails, for about maxWaitMs: as many
 * attempts as the backoff fits in it (so the last failure, not a bare timeout, says why the day waits).
 */
const statementFetcher = (wait: StatementWait = {}) => {
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

/**
 * One account's one Moscow business day: the bank's statement (waited for while the bank says it is
 * not ready), payrun's payouts of that day by the bank's dates, then matching and the reports. A
 * statement that never comes is recorded, and the day stays due for the next scheduled run.
 */
export async function reconciliationDayWorkflow(input: ReconcileDayInput): Promise<ReconcileDayResult> {
  const day = parseDay(input.day);
  if (!day || !/^\d{20}$/.test(input.account))
    throw ApplicationFailure.nonRetryable(
      `invalid input: account must be 20 digits and day a date YYYY-MM-DD (got ${input.account}, ${input.day})`,
      'invalid_input',
    );
  const step = { account: input.account, day };
  try {
    await statementFetcher(input.statementWait)(step);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    return recordStatementUnavailable({ ...step, error: causes(err) });
  }
  await listDayPayouts(step);
  return matchReconciliationDay(step);
}

/** "activity ScheduleToClose timeout: report/account_statement: internal_error: …": the whole chain. */
function causes(err: Error): string {
  const messages: string[] = [];
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages.join(': ') || err.message;
}

/**
 * What the Schedule starts every morning: every day not yet reconciled, from the later of `firstDay`
 * and `maxDays` back, up to the day before today in Moscow, oldest first, one account after another.
 * Days missed while the worker or the server was down are therefore caught up by the next run.
 */
export async function reconciliationDueWorkflow(input: ReconcileDueInput): Promise<ReconcileDueResult> {
  const upTo = addDays(moscowDay(workflowNow()), -1);
  const accounts = input.accounts?.length ? input.accounts : await reconciliationAccounts();
  const days: ReconcileDayResult[] = [];
  for (const account of accounts) {
    const due = await dueReconciliationDays({
      account,
      firstDay: input.firstDay,
      upTo,
      maxDays: input.maxDays ?? 10,
    });
    for (const day of due)
      days.push(
        await executeChild(reconciliationDayWorkflow, {
          workflowId: reconciliationWorkflowId(account, day),
          args: [{ account, day, ...(input.statementWait ? { statementWait: input.statementWait } : {}) }],
        }),
      );
  }
  return { upTo, days };
}
