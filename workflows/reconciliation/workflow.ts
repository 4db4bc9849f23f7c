import { ActivityFailure, ApplicationFailure, executeChild } from '@temporalio/workflow';
import { addDays, moscowDay, parseDay } from './days';
import {
  reconciliationWorkflowId,
  type ReconcileDayInput,
  type ReconcileDayResult,
  type ReconcileDueInput,
  type ReconcileDueResult,
} from './contract';
import {
  dueReconciliationDays,
  listDayPayouts,
  matchReconciliationDay,
  reconciliationAccounts,
  recordStatementUnavailable,
  statementFetcher,
} from './activities';
import { workflowNow } from '../shared/time';

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
