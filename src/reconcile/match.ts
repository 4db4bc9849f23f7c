import type { DifferenceKind } from './kinds';
import type { SignedFinish } from './payout-history';
import { statementChanges, type StatementSnapshot } from './snapshot';

/**
 * Matching one day of the bank's statement with payrun's payouts. Pure (no I/O, no clock), so it is
 * unit-tested on its own and the same input always gives the same report.
 *
 * Order: a statement line with a session id belongs to payrun's payout of that session (the bank's
 * own identifier of an API payment); what is left over on either side is a difference. A debit
 * without a session id is never matched to a payout (every payout of payrun has a session): one of the
 * same amount and counterparty account is named as a pair to confirm (`paired_by_amount`), and any
 * other is unknown to payrun, so an unbooked payout and an outside debit of the same amount are two
 * differences, not a match. Each run matches from scratch; what moved on the statement since the
 * day's previous run (`previous`) is reported as `statement_changed`.
 */

/** One line of the bank's statement, as reconciliation uses it (amounts in kopecks). */
export interface BankLine {
  bankSystemId: string;
  sessionId?: string;
  type: 'debet' | 'credit';
  amount: number;
  /** payment_date: the bank's date of the movement (Moscow). */
  date: string;
  purpose: string;
  counterparty: { name: string; account: string; bankCode: string; inn?: string };
}

/** A payout payrun made (or may have made: in doubt), with the session the bank knows it by. */
export interface PayrunPayout {
  reference: string;
  sessionId: string;
  amount: number;
  state: string;
  batchId?: string;
  /** The bank's date of the payout (its session's finished_at, Moscow), when the bank said it. */
  bankDate?: string;
  /** Where the money went when payrun knows the account (bank transfers); cards go through the bank's own account. */
  counterpartyAccount?: string;
  /** Who was paid, from the payout's own input (payrun's record, sealed in the store): the 1C export names them. */
  recipient?: { name: string; inn?: string; account?: string; maskedCard?: string };
  /** The payment_finished bodies its history was signalled, unchecked: `payrun payout proof` verifies them. */
  finishes?: SignedFinish[];
}

export interface StatementTotals {
  opening: number;
  closing: number;
  debet: number;
  credit: number;
}

export interface Difference {
  /** kind + what it is about: the same difference found again (a re-run) is the same record. */
  key: string;
  kind: DifferenceKind;
  account: string;
  /** The business day it was found on. */
  day: string;
  reference?: string;
  sessionId?: string;
  bankSystemId?: string;
  payrunAmount?: number;
  bankAmount?: number;
  detail: string;
}

export interface MatchedLine {
  bankSystemId: string;
  reference: string;
  sessionId: string;
  amount: number;
  type: 'debet' | 'credit';
  by: 'session_id';
}

export interface DayInput {
  account: string;
  day: string;
  lines: BankLine[];
  totals: StatementTotals;
  /** Closing balance of the day before, when that day was reconciled. */
  previousClosing?: number;
  /** payrun's payouts that may belong to this day: every one whose bank date is the day, and every one a line names. */
  payouts: PayrunPayout[];
  /** Differences still open from earlier days (a late line closes its missing_from_statement). */
  open: Difference[];
  /** The statement as the day's previous run read it, when the day ran before: what moved since is reported. */
  previous?: StatementSnapshot;
}

export interface DayResult {
  matched: MatchedLine[];
  /** Differences found on this day (a re-run finds the same keys again). */
  found: Difference[];
  /** Earlier differences this day's statement settles (the bank's line came late). */
  settled: { key: string; bankSystemId: string; day: string }[];
  /** Lines that are not payouts and differ from nothing (deposit top-ups). */
  other: BankLine[];
}

/** payrun's states of a payout that moved no money: a statement line for one is money payrun does not know it paid. */
const NOT_PAID = new Set(['failed', 'rejected', 'expired', 'cancelled']);

export function matchDay(input: DayInput): DayResult {
  const { account, day } = input;
  const bySession = new Map(input.payouts.map((p) => [p.sessionId, p]));
  const openMissing = new Map(
    input.open.filter((d) => d.kind === 'missing_from_statement').map((d) => [d.sessionId, d]),
  );
  const result: DayResult = { matched: [], found: [], settled: [], other: [] };
  const usedSessions = new Set<string>();
  const withoutSession: BankLine[] = [];
  const found = (d: Omit<Difference, 'account' | 'day'>) => result.found.push({ ...d, account, day });
  const match = (line: BankLine, p: PayrunPayout, by: MatchedLine['by']) => {
    usedSessions.add(p.sessionId);
    result.matched.push({
      bankSystemId: line.bankSystemId,
      reference: p.reference,
      sessionId: p.sessionId,
      amount: line.amount,
      type: line.type,
      by,
    });
    const earlier = openMissing.get(p.sessionId);
    if (earlier) result.settled.push({ key: earlier.key, bankSystemId: line.bankSystemId, day });
  };

  for (const line of input.lines) {
    const payout = line.sessionId ? bySession.get(line.sessionId) : undefined;
    if (line.type === 'credit') {
      if (payout) found(aboutPayout('returned', line, payout));
      else result.other.push(line);
      continue;
    }
    if (!line.sessionId) {
      withoutSession.push(line);
      continue;
    }
    if (!payout || NOT_PAID.has(payout.state)) {
      found(unknownLine(line, payout));
      continue;
    }
    match(line, payout, 'session_id');
    if (line.amount !== payout.amount) found(aboutPayout('amount_differs', line, payout));
  }

  // Payouts of this day (or still missing from an earlier one) the statement did not name by session.
  const unmatched = input.payouts.filter(
    (p) =>
      !usedSessions.has(p.sessionId) &&
      !NOT_PAID.has(p.state) &&
      (p.bankDate === day || openMissing.has(p.sessionId)),
  );
  for (const line of withoutSession) {
    // Amount and account are no proof the line is this payout: a pair to confirm, never a match.
    const i = unmatched.findIndex(
      (p) =>
        p.amount === line.amount &&
        p.counterpartyAccount !== undefined &&
        p.counterpartyAccount === line.counterparty.account,
    );
    if (i < 0) {
      found(unknownLine(line));
      continue;
    }
    const p = unmatched.splice(i, 1)[0]!;
    found({
      key: `paired_by_amount:${p.sessionId}`,
      kind: 'paired_by_amount',
      reference: p.reference,
      sessionId: p.sessionId,
      bankSystemId: line.bankSystemId,
      payrunAmount: p.amount,
      bankAmount: line.amount,
      detail: `line ${line.bankSystemId} has no session id; same amount and account as ${p.reference}`,
    });
  }
  for (const p of unmatched)
    if (p.bankDate === day)
      found({
        key: `missing_from_statement:${p.sessionId}`,
        kind: 'missing_from_statement',
        reference: p.reference,
        sessionId: p.sessionId,
        payrunAmount: p.amount,
        detail: `payrun: ${p.state}`,
      });

  if (input.previous) {
    const sessions = new Map(input.payouts.map((p) => [p.sessionId, p.reference]));
    for (const change of statementChanges(input.previous, input)) {
      const reference = change.sessionId ? sessions.get(change.sessionId) : undefined;
      found({
        key: `statement_changed:${account}:${day}:${change.what}`,
        kind: 'statement_changed',
        ...(change.bankSystemId ? { bankSystemId: change.bankSystemId } : {}),
        ...(change.sessionId ? { sessionId: change.sessionId } : {}),
        ...(reference ? { reference } : {}),
        detail: change.detail,
      });
    }
  }

  const balance = balanceProblems(input);
  if (balance.length > 0)
    found({
      key: `balance_mismatch:${account}:${day}`,
      kind: 'balance_mismatch',
      detail: balance.join('; '),
    });
  return result;
}

/** A line's difference about one of payrun's payouts (a return, a changed amount), keyed by its session. */
function aboutPayout(
  kind: 'returned' | 'amount_differs',
  line: BankLine,
  p: PayrunPayout,
): Omit<Difference, 'account' | 'day'> {
  return {
    key: `${kind}:${p.sessionId}`,
    kind,
    reference: p.reference,
    sessionId: p.sessionId,
    bankSystemId: line.bankSystemId,
    payrunAmount: p.amount,
    bankAmount: line.amount,
    detail: line.purpose,
  };
}

/** A debit payrun did not make, or made and recorded as not paid (`payout`), keyed by the bank's id of the line. */
function unknownLine(line: BankLine, payout?: PayrunPayout): Omit<Difference, 'account' | 'day'> {
  return {
    key: `unknown_to_payrun:${line.bankSystemId}`,
    kind: 'unknown_to_payrun',
    ...(line.sessionId ? { sessionId: line.sessionId } : {}),
    bankSystemId: line.bankSystemId,
    bankAmount: line.amount,
    detail: payout
      ? `${payout.reference}: payrun recorded it ${payout.state}, the bank paid it`
      : line.purpose,
    ...(payout ? { reference: payout.reference } : {}),
  };
}

/** Why the day's balances do not follow from each other, if they do not. */
function balanceProblems({ lines, totals, previousClosing }: DayInput): string[] {
  const sum = (type: BankLine['type']) =>
    lines.filter((l) => l.type === type).reduce((s, l) => s + l.amount, 0);
  const problems: string[] = [];
  if (sum('debet') !== totals.debet)
    problems.push(`debit lines ${sum('debet')} ≠ debit turnover ${totals.debet}`);
  if (sum('credit') !== totals.credit)
    problems.push(`credit lines ${sum('credit')} ≠ credit turnover ${totals.credit}`);
  const expected = totals.opening + totals.credit - totals.debet;
  if (expected !== totals.closing)
    problems.push(
      `opening ${totals.opening} + credit ${totals.credit} − debit ${totals.debet} = ${expected} ≠ closing ${totals.closing}`,
    );
  if (previousClosing !== undefined && previousClosing !== totals.opening)
    problems.push(`opening ${totals.opening} ≠ the previous day's closing ${previousClosing}`);
  return problems;
}
