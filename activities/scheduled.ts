import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { BankClient } from '../src/bank';
import { loadBatchPaths } from '../src/batch/services/config';
import { loadStopList } from '../src/csv';
import type { PayoutRequest } from '../src/domain';
import { formatRubles } from '../src/money';
import type { Policy } from '../src/policy/file';
import { callBank } from './failures';
import { reserveIncome } from './recipient';

/** Why a scheduled row that woke may not go on to the bank: the payout ends not paid with it. */
export interface WakeRefusal {
  state: 'rejected' | 'limit_exceeded' | 'failed';
  code: string;
  reason: string;
}

/**
 * What a scheduled payout checks when it wakes (issue 42), besides what every payout checks before its
 * session (its batch's approval under today's policy, the taxpayer verdict, earlier runs): today's
 * stop-list, the recipient's yearly cap in today's Moscow year, and the deposit. One local activity, one
 * marker; only scheduled rows call it.
 */
export function createScheduledActivities(deps: {
  client: Client;
  taskQueue: string;
  bank: BankClient;
  policy: { current(): Policy };
}) {
  /** Today's stop-list file (PAYRUN_STOP_LIST); unreadable fails the attempt, so the row waits, never pays. */
  const stopListed = (inn: string) => {
    const file = loadBatchPaths().stopListFile;
    return file !== undefined && loadStopList(file).has(inn);
  };

  /**
   * The row's own reservation asked again: the ledger finds it held by this run and answers what is left
   * for everyone else in the year of now (a new year's cap starts afresh), so the row fits if that is at
   * least its amount. Another batch's payout that took the room meanwhile, or a lowered cap, refuse it.
   */
  const overCap = async (ask: WakeAsk): Promise<WakeRefusal | undefined> => {
    const { request } = ask;
    const limits = deps.policy.current().limitsFor(request.recipient.taxReference, request.selfEmployed);
    if (!limits) return undefined;
    const answer = await reserveIncome(deps.client, deps.taskQueue, request.recipient.taxReference, {
      reference: request.reference,
      workflowId: ask.workflowId,
      runId: ask.runId,
      amount: request.amount,
      selfEmployed: request.selfEmployed,
    });
    const amount = `${formatRubles(request.amount)} ₽`;
    if (!answer.ok && 'unproven' in answer)
      return {
        state: 'limit_exceeded',
        code: 'limit_exceeded',
        reason: `the recipient's ledger did not take the reservation as this payout's (${answer.unproven}: ${answer.reason}); nothing was sent to the bank`,
      };
    const cap = limits.yearlyCapKopecks;
    const left = answer.headroomKopecks;
    if (answer.ok && (cap === undefined || left === undefined || left >= request.amount)) return undefined;
    // The words activities/payout-runs.ts uses, so the report says them again in the language set.
    const limitKopecks = answer.ok ? cap! : answer.limitKopecks;
    const what =
      answer.ok || answer.limit === 'yearly_cap'
        ? `the self-employed income cap for ${answer.year},`
        : answer.limit === 'per_payout'
          ? 'the per-payout limit of'
          : 'the monthly limit of';
    return {
      state: 'limit_exceeded',
      code: 'limit_exceeded',
      reason: `${amount} would pass ${what} ${formatRubles(limitKopecks)} ₽: ${formatRubles(answer.headroomKopecks ?? 0)} ₽ left; nothing was sent to the bank`,
    };
  };

  return {
    async wakeChecks(ask: WakeAsk): Promise<WakeRefusal | undefined> {
      const { request } = ask;
      if (stopListed(request.recipient.taxReference))
        return { state: 'rejected', code: 'stop_list', reason: 'the tax number is on the stop-list' };
      const cap = await overCap(ask);
      if (cap) return cap;
      const res = await callBank('wallet/balance', () =>
        deps.bank.reports.walletBalance(
          { request_datetime: new Date().toISOString() },
          { signal: Context.current().cancellationSignal, maxRetries: 0 },
        ),
      );
      const balance = res.wallets.reduce((sum, w) => sum + w.amount_details.amount, 0);
      if (balance < request.amount)
        return {
          state: 'failed',
          code: 'deposit_short',
          reason: `the deposit held ${balance} kopecks at wake, less than the row's ${request.amount} kopecks`,
        };
      return undefined;
    },
  };
}

export interface WakeAsk {
  workflowId: string;
  runId: string;
  request: PayoutRequest;
}
