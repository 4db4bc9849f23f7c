import type { Client } from '@temporalio/client';
import { maskDigits } from '../csv/report';
import type { BankClient } from '../bank';
import { lookupPayout } from '../batch/services/lookup';
import { mapLimit } from '../map-limit';
import { payoutStatusQuery, type PayoutStatus } from '../../workflows/payout/contract';
import { addDays, dayStartMs, moscowDay } from './days';
import type { PayrunPayout } from './match';
import { readPayoutHistory } from './payout-history';

/**
 * payrun's payouts that may be on one day's statement, each with the bank's date:
 * - every payout workflow of this deployment started from `LOOKBACK_DAYS` before the day to its end
 *   (a payout is paid after it starts; one that waited for approval or for the bank still started
 *   within the window), and
 * - every payout whose session a statement line names (a late line of a payout started long before).
 * Workflows are found through visibility (the PayrunSessionId search attribute every payout upserts),
 * their status from their own record; the bank's date is the payout's finished_at as session/status
 * answers it, asked only for payouts the statement does not name (a named one is dated by its line) and
 * no earlier statement matched (so a day's payouts are not asked about again on the next three days).
 */
const LOOKBACK_DAYS = 3;
const SESSIONS_PER_QUERY = 50;
const NOT_PAID = new Set(['failed', 'rejected', 'expired', 'cancelled']);

const quote = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

export async function listPayrunPayouts(opts: {
  client: Client;
  bank: BankClient;
  taskQueue: string;
  day: string;
  /** Session ids the day's statement names. */
  sessions: string[];
  /** Sessions an earlier day's statement already matched: on no later day can they be missing. */
  settled?: ReadonlySet<string>;
  /** Called as payouts are listed and read (the activity's pulse: heartbeats, throws once cancelled). */
  heartbeat?: () => void;
  signal?: AbortSignal;
}): Promise<PayrunPayout[]> {
  const { client, taskQueue, day } = opts;
  const scope = `WorkflowType = "payoutWorkflow" AND TaskQueue = "${quote(taskQueue)}"`;
  const from = new Date(dayStartMs(addDays(day, -LOOKBACK_DAYS))).toISOString();
  const to = new Date(dayStartMs(addDays(day, 1))).toISOString();
  const queries = [`${scope} AND StartTime >= "${from}" AND StartTime < "${to}"`];
  for (let i = 0; i < opts.sessions.length; i += SESSIONS_PER_QUERY) {
    const list = opts.sessions.slice(i, i + SESSIONS_PER_QUERY).map((s) => `"${quote(s)}"`);
    queries.push(`${scope} AND PayrunSessionId IN (${list.join(', ')})`);
  }
  const ids = new Set<string>();
  for (const query of queries)
    for await (const wf of client.workflow.list({ query })) {
      opts.heartbeat?.(); // a busy day lists thousands: the listing alone may outlast the heartbeat timeout
      ids.add(wf.workflowId);
    }

  const named = new Set(opts.sessions);
  const found = await mapLimit([...ids], 8, async (workflowId) => {
    opts.heartbeat?.();
    const status = await payoutStatusOf(client, workflowId);
    const sessionId = status?.bank.sessionId;
    if (!status || !sessionId) return undefined; // never reached the bank: nothing to find on a statement
    if (!named.has(sessionId) && (NOT_PAID.has(status.state) || opts.settled?.has(sessionId)))
      return undefined;
    const payout: PayrunPayout = {
      reference: status.reference,
      sessionId,
      amount: status.amount,
      state: status.state,
      ...(status.batchId ? { batchId: status.batchId } : {}),
      ...(status.payee.method.type === 'bank_account'
        ? { counterpartyAccount: status.payee.method.account }
        : {}),
    };
    Object.assign(payout, await fromHistory(client, workflowId));
    if (!named.has(sessionId)) {
      const bankDate = await bankDateOf(opts.bank, sessionId, opts.signal);
      if (bankDate) payout.bankDate = bankDate;
    }
    return payout;
  });
  return found.filter((p): p is PayrunPayout => p !== undefined);
}

/** A payout's status: its result when closed, its status query while it runs (it may wait for credit confirmation after paying). */
async function payoutStatusOf(client: Client, workflowId: string): Promise<PayoutStatus | undefined> {
  const lookup = await lookupPayout(client, workflowId);
  if (lookup.kind === 'none') return undefined;
  if (lookup.kind !== 'running') return lookup.status;
  try {
    return await client.workflow.getHandle(workflowId).query(payoutStatusQuery);
  } catch {
    return undefined; // a run that cannot answer yet has not paid anything the statement could show
  }
}

/**
 * What the payout's own history says: who it paid, from its start input (payrun's record, decrypted by
 * the worker's codec: the name, the INN, the account of a bank transfer, a card only masked), and the
 * signed payment_finished bodies it was signalled, kept in the day's sealed payouts so that
 * `payrun payout proof` still finds them after the namespace's retention removed the history. At most
 * two pages of the current run are read (a run flooded with signals is too large to fetch whole).
 */
async function fromHistory(
  client: Client,
  workflowId: string,
): Promise<Pick<PayrunPayout, 'recipient' | 'finishes'>> {
  try {
    const { input, finishes } = await readPayoutHistory(client, workflowId, { runs: 'latest', maxPages: 2 });
    if (!input) return finishes.length ? { finishes } : {};
    const { recipient: r, method } = input.request;
    return {
      recipient: {
        name: [r.lastName, r.firstName, r.middleName].filter(Boolean).join(' '),
        inn: r.taxReference,
        ...(method.type === 'bank_account' ? { account: method.account } : {}),
        ...(method.type === 'card' ? { maskedCard: maskDigits(method.cardNumber, 'card') } : {}),
      },
      ...(finishes.length ? { finishes } : {}),
    };
  } catch {
    return {}; // the 1C file then names the bank's counterparty only, and no proof is kept
  }
}

/** The Moscow date the bank finished the payout on, when it says it succeeded. */
async function bankDateOf(
  bank: BankClient,
  sessionId: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const res = await bank.sessions.status({ session_id: sessionId }, { signal, maxRetries: 0 });
  const op = res.session.payments?.find((p) => p.status === 'succeeded' && p.finished_at);
  return op?.finished_at ? moscowDay(Date.parse(op.finished_at)) : undefined;
}
