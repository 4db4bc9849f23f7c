import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { BankClient } from '../src/bank';
import { loadBatchPaths } from '../src/batch/services/config';
import { loadStopList } from '../src/csv';
import type { PayoutRequest } from '../src/domain';
import type { Policy } from '../src/policy/file';
import { callBank } from './failures';
import { limitReason, unprovenReason } from './limit-words';
import { reserveIncome } from './recipient';
import { ledgerHeadroom } from '../src/batch/services/headroom';

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
   * The row's own reservation asked again (the ledger finds it held by this run, or proves and judges it
   * afresh if it was lost), then the ledger's figures under today's limits: a cap lowered, or income from
   * elsewhere learnt, while the row slept can leave what is paid and held past the cap, and it is refused.
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
    if (!answer.ok && 'unproven' in answer)
      return { state: 'limit_exceeded', code: 'limit_exceeded', reason: unprovenReason(answer) };
    if (!answer.ok) return capRefusal(request.amount, answer);
    const now = await ledgerHeadroom(
      deps.client,
      deps.taskQueue,
      deps.policy.current(),
    )(request.recipient.taxReference, request.selfEmployed);
    return now?.capOverKopecks && limits.yearlyCapKopecks !== undefined
      ? capRefusal(request.amount, {
          limit: 'yearly_cap',
          limitKopecks: limits.yearlyCapKopecks,
          headroomKopecks: 0,
          year: now.year,
        })
      : undefined;
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

/** A limit the row would pass, as a wake refusal in the words every refused reservation is said in. */
export function capRefusal(amountKopecks: number, over: Parameters<typeof limitReason>[1]): WakeRefusal {
  return { state: 'limit_exceeded', code: 'limit_exceeded', reason: limitReason(amountKopecks, over) };
}
