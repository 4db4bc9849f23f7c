import type { Sandbox } from './core';
import { ApiError } from './http/errors';
import type { Account, AccountTx, StatementFault } from './state/types';

/**
 * report/account_statement as the sandbox's ledger says it, with statement faults that make the bank's
 * record differ from what happened, so reconciliation has something to find:
 * - omit: the line of a session never appears in any statement (a payout missing from the statement);
 * - amount: the line of a session shows this amount instead (a changed amount);
 * - late: the line of a session is booked `days` calendar days later (the bank's confirmation lags);
 * - not_ready: the statement of `date` answers 503 statement_not_ready until the sandbox clock reaches `until`;
 * - balance: the closing balance of `date` is off by `shift` kopecks (a balance that does not follow).
 * A statement that fails outright is an HTTP fault rule on /api/v1/report/account_statement (faults.ts).
 * Each statement is consistent with the lines it shows: its opening balance is the initial balance plus
 * every line shown on earlier days.
 */
export type { StatementFault };

const MSK_OFFSET_MS = 3 * 3600_000;
const DAY_MS = 86_400_000;
/** Statement days are Moscow calendar days (UTC+3, no daylight saving since 2014). */
export const mskDate = (ms: number): string => new Date(ms + MSK_OFFSET_MS).toISOString().slice(0, 10);

interface ShownLine {
  tx: AccountTx;
  date: string;
  amount: number;
}

function shownLines(acc: Account, faults: StatementFault[]): ShownLine[] {
  const bySession = new Map<string, StatementFault[]>();
  for (const f of faults)
    if ('session_id' in f) bySession.set(f.session_id, [...(bySession.get(f.session_id) ?? []), f]);
  const lines: ShownLine[] = [];
  for (const tx of acc.transactions) {
    if (tx.unstated) continue;
    // Only the payout's debit is affected; its return (a credit under the same session) is not.
    const own = tx.session_id && tx.type === 'debet' ? (bySession.get(tx.session_id) ?? []) : [];
    if (own.some((f) => f.kind === 'omit')) continue;
    const late = own.find((f) => f.kind === 'late');
    const changed = own.find((f) => f.kind === 'amount');
    lines.push({
      tx,
      date: mskDate(tx.atMs + (late?.kind === 'late' ? late.days * DAY_MS : 0)),
      amount: changed?.kind === 'amount' ? changed.amount : tx.amount,
    });
  }
  return lines;
}

const signed = (l: { tx: AccountTx; amount: number }): number =>
  l.tx.type === 'credit' ? l.amount : -l.amount;

export function accountStatement(sb: Sandbox, acc: Account, day: string): Record<string, unknown> {
  const faults = sb.state.statementFaults ?? [];
  const notReady = faults.find((f) => f.kind === 'not_ready' && f.date === day);
  if (notReady?.kind === 'not_ready' && sb.now() < Date.parse(notReady.until))
    throw new ApiError(503, 'statement_not_ready', `the statement of ${day} is not ready yet, retry later`);
  const lines = shownLines(acc, faults);
  // The account's balance before anything was booked, then every line shown before the day.
  const initial = acc.balance - acc.transactions.reduce((s, tx) => s + signed({ tx, amount: tx.amount }), 0);
  const opening = initial + lines.filter((l) => l.date < day).reduce((s, l) => s + signed(l), 0);
  const today = lines.filter((l) => l.date === day);
  const debet = today.filter((l) => l.tx.type === 'debet').reduce((s, l) => s + l.amount, 0);
  const credit = today.filter((l) => l.tx.type === 'credit').reduce((s, l) => s + l.amount, 0);
  const shift = faults.reduce((s, f) => s + (f.kind === 'balance' && f.date === day ? f.shift : 0), 0);
  return {
    date_from: day,
    date_to: day,
    account_number: acc.number,
    total_turnover: { debet, credit, debet_base: null, credit_base: null },
    total_balance: {
      opening,
      closing: opening + credit - debet + shift,
      opening_base: null,
      closing_base: null,
    },
    transactions: today.map(({ tx, date, amount }) => ({
      amount,
      currency: tx.currency,
      payment_date: date,
      bank_system_id: tx.id,
      ...(tx.transaction_id ? { transaction_id: tx.transaction_id } : {}),
      ...(tx.session_id ? { session_id: tx.session_id } : {}),
      purpose: tx.purpose,
      counter_party: tx.counter_party,
      type: tx.type,
    })),
  };
}

/** Checks `POST /__admin/statement-faults` input: every fault named by its index and field. */
export function validateStatementFaults(input: unknown): StatementFault[] {
  if (!Array.isArray(input)) throw new Error('faults: must be an array');
  const day = /^\d{4}-\d{2}-\d{2}$/;
  return input.map((raw, i) => {
    const f = (raw ?? {}) as Record<string, unknown>;
    const need = (field: string, ok: boolean, rule: string): void => {
      if (!ok) throw new Error(`faults[${i}].${field}: ${rule}`);
    };
    const kinds = ['omit', 'amount', 'late', 'not_ready', 'balance'];
    need('kind', kinds.includes(f.kind as string), `must be one of ${kinds.join(', ')}`);
    if (['omit', 'amount', 'late'].includes(f.kind as string))
      need('session_id', typeof f.session_id === 'string' && f.session_id !== '', 'a session id');
    if (f.kind === 'amount')
      need('amount', Number.isSafeInteger(f.amount) && (f.amount as number) >= 0, 'kopecks, 0 or more');
    if (f.kind === 'late')
      need(
        'days',
        Number.isSafeInteger(f.days) && (f.days as number) > 0,
        'a whole number of days, 1 or more',
      );
    if (f.kind === 'not_ready' || f.kind === 'balance')
      need('date', typeof f.date === 'string' && day.test(f.date), 'YYYY-MM-DD');
    if (f.kind === 'not_ready')
      need('until', typeof f.until === 'string' && !Number.isNaN(Date.parse(f.until)), 'an ISO 8601 instant');
    if (f.kind === 'balance') need('shift', Number.isSafeInteger(f.shift), 'kopecks (may be negative)');
    return f as unknown as StatementFault;
  });
}
