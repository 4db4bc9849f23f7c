import { ActivityFailure, executeChild } from '@temporalio/workflow';
import { addDays, moscowDay } from './days';
import {
  reconciliationWorkflowId,
  type ReconcileDayResult,
  type ReconcileDueInput,
  type ReconcileDueResult,
  type StatementWait,
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

/** One day's run: its whole state is the account and day it closes (nothing is carried: it never continues). */
export class ReconciliationDayRun {
  constructor(
    readonly state: { account: string; day: string },
    private readonly statementWait?: StatementWait,
  ) {}

  /**
   * The bank's statement (waited for while the bank says it is not ready), payrun's payouts of that day
   * by the bank's dates, then matching and the reports. A statement that never comes is recorded, and
   * the day stays due for the next scheduled run.
   */
  async run(): Promise<ReconcileDayResult> {
    const step = this.state;
    try {
      await statementFetcher(this.statementWait)(step);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      return recordStatementUnavailable({ ...step, error: causes(err) });
    }
    await listDayPayouts(step);
    return matchReconciliationDay(step);
  }
}

/** "activity ScheduleToClose timeout: report/account_statement: internal_error: …": the whole chain. */
function causes(err: Error): string {
  const messages: string[] = [];
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages.join(': ') || err.message;
}

/**
 * The morning run's: every day not yet reconciled, from the later of `firstDay` and `maxDays` back, up to
 * the day before today in Moscow, oldest first, one account after another, each a child day run. Days
 * missed while the worker or the server was down are therefore caught up by the next run.
 */
export class ReconciliationDueRun {
  readonly state: ReconcileDueResult = { upTo: '', days: [] };

  constructor(private readonly input: ReconcileDueInput) {}

  async run(dayWorkflow: string): Promise<ReconcileDueResult> {
    const { input, state } = this;
    state.upTo = addDays(moscowDay(workflowNow()), -1);
    const accounts = input.accounts?.length ? input.accounts : await reconciliationAccounts();
    for (const account of accounts) {
      const due = await dueReconciliationDays({
        account,
        firstDay: input.firstDay,
        upTo: state.upTo,
        maxDays: input.maxDays ?? 10,
      });
      for (const day of due)
        state.days.push(
          await executeChild<(i: unknown) => Promise<ReconcileDayResult>>(dayWorkflow, {
            workflowId: reconciliationWorkflowId(account, day),
            args: [{ account, day, ...(input.statementWait ? { statementWait: input.statementWait } : {}) }],
          }),
        );
    }
    return state;
  }
}
