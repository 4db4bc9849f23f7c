import type { Client } from '@temporalio/client';
import type { BankClient } from '../src/bank';
import type { AccountStatement } from '../src/bank/types/reports';
import { loadDataDir, type PayerConfig } from '../src/config';
import { reconcileDay } from '../src/reconcile/day';
import { addDays } from '../src/reconcile/days';
import type { PayrunPayout } from '../src/reconcile/match';
import { listPayrunPayouts } from '../src/reconcile/payrun-payouts';
import type { DayOutcome } from '../src/reconcile/store';
import { reconcileStoreFor } from '../src/reconcile/store/open';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Policy } from '../src/policy/file';
import { judgeAndResolve, ResolutionRefused } from '../src/reconcile/resolve';
import type { DifferenceStatement, SignedStatement } from '../workflows/shared/approval-contract';
import {
  RESOLVE_REFUSED_TYPE,
  type DueDaysInput,
  type ReconcileDayResult,
  type ReconcileDayStep,
  type ResolvedDifference,
} from '../workflows/reconciliation/contract';
import { startPayoutReturn } from '../src/routing/returns';
import { callBank } from './failures';
import { activityPulse } from './pulse';

export interface ReconciliationActivityDeps {
  bank: BankClient;
  payer: PayerConfig;
  client: Client;
  taskQueue: string;
  /** The folder store's place (and whose payload keys seal); PAYRUN_DATA_DIR at call time when absent. */
  dataDir?: string;
  /** The worker's policy file (PAYRUN_POLICY_FILE): who may resolve a difference. Absent: nobody may. */
  policy?: { current(): Policy };
}

const ACCOUNT = /^\d{20}$/;

/**
 * Reconciliation's steps: read the bank's statement, list payrun's payouts, match and report. Each step
 * leaves its result in the reconciliation store (a day's statement and payouts can be far larger than a
 * workflow payload may be; the next step may run on another host), and returns only what the workflow
 * decides by.
 */
export function createReconciliationActivities(deps: ReconciliationActivityDeps) {
  const store = () => reconcileStoreFor(deps.dataDir ?? loadDataDir());
  // One owner per retry: Temporal retries these activities, so the client tries each call once.
  const once = () => ({ signal: Context.current().cancellationSignal, maxRetries: 0 });
  const statementOf = async (step: ReconcileDayStep): Promise<AccountStatement> => {
    const statement = await store().readDayInput<AccountStatement>(step.account, step.day, 'statement');
    if (!statement)
      throw new Error(
        `no statement of ${step.account} ${step.day} in ${store().where} (fetchStatement first)`,
      );
    return statement;
  };

  /**
   * Every credit of the day that reverses a payout starts (or reaches) that session's one return
   * workflow, which reads the line from the bank again before it marks anything.
   */
  const startReturns = async (step: ReconcileDayStep) => {
    const all = await store().readDifferences(step.account);
    for (const d of Object.values(all))
      if (d.kind === 'returned' && d.day === step.day && d.sessionId && d.bankSystemId)
        await startPayoutReturn(deps.client, deps.taskQueue, d.sessionId, {
          source: 'statement',
          account: step.account,
          day: step.day,
          bankSystemId: d.bankSystemId,
        });
  };

  return {
    /** The accounts to reconcile when none are named: the security deposit account(s) payouts are paid from. */
    async reconciliationAccounts(): Promise<string[]> {
      const res = await callBank('wallet/balance', () =>
        deps.bank.reports.walletBalance({ request_datetime: new Date().toISOString() }, once()),
      );
      return res.wallets.map((w) => w.id).filter((id) => ACCOUNT.test(id));
    },

    /** Days from firstDay (or maxDays back) up to upTo that have no reconciled outcome yet, oldest first. */
    async dueReconciliationDays(input: DueDaysInput): Promise<string[]> {
      const days: string[] = [];
      const from = [input.firstDay, addDays(input.upTo, 1 - input.maxDays)].sort().at(-1)!;
      for (let d = from; d <= input.upTo; d = addDays(d, 1))
        if ((await store().readDayOutcome(input.account, d))?.outcome !== 'reconciled') days.push(d);
      return days;
    },

    /** report/account_statement of the day; a statement not ready yet fails retryably (the workflow's policy waits). */
    async fetchStatement(step: ReconcileDayStep): Promise<{ lines: number }> {
      const res = await callBank('report/account_statement', () =>
        deps.bank.reports.accountStatement(
          { account_number: step.account, date_from: step.day, date_to: step.day },
          once(),
        ),
      );
      const statement = res.method.account_statement;
      await store().writeDayInput(step.account, step.day, 'statement', statement);
      return { lines: statement.transactions.length };
    },

    /** payrun's payouts that may be on this day's statement, with the bank's date of each. */
    async listDayPayouts(step: ReconcileDayStep): Promise<{ payouts: number }> {
      const statement = await statementOf(step);
      const sessions = statement.transactions.flatMap((t) => (t.session_id ? [t.session_id] : []));
      const payouts = await listPayrunPayouts({
        client: deps.client,
        bank: deps.bank,
        taskQueue: deps.taskQueue,
        day: step.day,
        sessions,
        // Matched on another day only: a re-run of this day matches its own payouts from scratch.
        settled: new Set(
          Object.entries(await store().readMatchedSessions(step.account)).flatMap(([session, on]) =>
            on === step.day ? [] : [session],
          ),
        ),
        heartbeat: activityPulse(),
        signal: Context.current().cancellationSignal,
      });
      await store().writeDayInput(step.account, step.day, 'payouts', payouts);
      return { payouts: payouts.length };
    },

    /** Matches the day, records its differences and writes its reports (src/reconcile/day.ts). */
    async matchReconciliationDay(step: ReconcileDayStep): Promise<ReconcileDayResult> {
      let balancesNow: { account?: number; deposit?: number; at: string } | undefined;
      try {
        const [acc, wallets] = await Promise.all([
          deps.bank.reports.accountBalance({ account_number: step.account }, once()),
          deps.bank.reports.walletBalance({ request_datetime: new Date().toISOString() }, once()),
        ]);
        const deposit = wallets.wallets.find((w) => w.id === step.account)?.amount_details.amount;
        balancesNow = { account: acc.balance.current_balance, deposit, at: new Date().toISOString() };
      } catch {
        balancesNow = undefined; // for reference only: a day is reconciled by its statement, not by today's balance
      }
      // The statement's snapshot stays in the store (the next run of the day reads it there): a busy
      // day's lines would otherwise ride in every history that carries this result.
      const { statement: _inStore, ...outcome } = await reconcileDay({
        store: store(),
        account: step.account,
        day: step.day,
        statement: await statementOf(step),
        payouts: (await store().readDayInput<PayrunPayout[]>(step.account, step.day, 'payouts')) ?? [],
        holder: { name: deps.payer.payerName ?? '', inn: deps.payer.payerTaxNumber },
        ...(balancesNow ? { balancesNow } : {}),
        now: new Date(),
        pulse: activityPulse(),
      });
      await startReturns(step);
      return outcome;
    },

    /**
     * An operator's signed resolution, judged here under the worker's policy file (never the sender's)
     * and recorded with its evidence; a refusal is final and leaves the difference open.
     */
    async resolveSignedDifference(signed: SignedStatement<DifferenceStatement>): Promise<ResolvedDifference> {
      const refuse = (reason: string) => ApplicationFailure.nonRetryable(reason, RESOLVE_REFUSED_TYPE);
      if (!deps.policy) throw refuse('this worker has no policy file: nobody may resolve a difference');
      try {
        return await judgeAndResolve(store(), deps.policy.current(), signed);
      } catch (err) {
        if (err instanceof ResolutionRefused) throw refuse(err.message);
        throw err;
      }
    },

    /** The statement never came within the wait: the day stays due, and the next scheduled run tries again. */
    async recordStatementUnavailable(step: ReconcileDayStep & { error: string }): Promise<DayOutcome> {
      const outcome: DayOutcome = {
        account: step.account,
        day: step.day,
        outcome: 'statement_unavailable',
        open: 0,
        found: 0,
        settled: 0,
        at: new Date().toISOString(),
        error: step.error,
      };
      await store().writeDayOutcome(outcome);
      return outcome;
    },
  };
}
