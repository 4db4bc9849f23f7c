import { join } from 'node:path';
import type { AccountStatement } from '../bank/types/reports';
import { writePrivateFileAtomic } from '../private-fs';
import { type BankLine, matchDay, type PayrunPayout, type StatementTotals } from './match';
import { type AccountHolder, oneCExport } from './onec';
import { type DayReport, reportCsv, reportJson } from './report';
import {
  dayDir,
  type DayOutcome,
  type DifferenceRecord,
  openDifferences,
  previousClosing,
  readDifferences,
  rememberMatchedSessions,
  writeDayOutcome,
  writeDifferences,
} from './store';

/** The statement as matching reads it: lines in kopecks with the bank's dates, and its totals. */
export function statementLines(s: AccountStatement): { lines: BankLine[]; totals: StatementTotals } {
  const lines = s.transactions.map((t): BankLine => ({
    bankSystemId: t.bank_system_id,
    ...(t.session_id ? { sessionId: t.session_id } : {}),
    type: t.type === 'credit' ? 'credit' : 'debet',
    amount: t.amount,
    date: t.payment_date,
    purpose: t.purpose,
    counterparty: {
      name: t.counter_party.name,
      account: t.counter_party.account_number,
      bankCode: t.counter_party.bank_code,
      ...(t.counter_party.inn ? { inn: t.counter_party.inn } : {}),
    },
  }));
  const sum = (type: string) => lines.filter((l) => l.type === type).reduce((a, l) => a + l.amount, 0);
  const totals: StatementTotals = {
    opening: s.total_balance?.opening ?? 0,
    closing: s.total_balance?.closing ?? 0,
    debet: s.total_turnover?.debet ?? sum('debet'),
    credit: s.total_turnover?.credit ?? sum('credit'),
  };
  return { lines, totals };
}

export interface ReconcileDayInput {
  dataDir: string;
  account: string;
  day: string;
  statement: AccountStatement;
  payouts: PayrunPayout[];
  holder: AccountHolder;
  balancesNow?: DayReport['balancesNow'];
  now: Date;
}

/**
 * Matches one day and records it: new differences open (a key seen before keeps its state: a re-run
 * reports nothing twice), earlier ones the statement settles are marked matched, and the day's
 * reports are written. Returns the day's outcome as day.json holds it.
 */
export function reconcileDay(input: ReconcileDayInput): DayOutcome {
  const { dataDir, account, day, now } = input;
  const { lines, totals } = statementLines(input.statement);
  const result = matchDay({
    account,
    day,
    lines,
    totals,
    previousClosing: previousClosing(dataDir, account, day),
    payouts: input.payouts,
    open: openDifferences(dataDir, account),
  });
  const all = readDifferences(dataDir, account);
  const at = now.toISOString();
  for (const d of result.found) all[d.key] ??= { ...d, state: 'open', foundAt: at };
  for (const s of result.settled) {
    const d = all[s.key];
    if (d?.state === 'open')
      all[s.key] = { ...d, state: 'matched', matched: { day: s.day, bankSystemId: s.bankSystemId } };
  }
  writeDifferences(dataDir, account, all);
  rememberMatchedSessions(
    dataDir,
    account,
    day,
    result.matched.map((m) => m.sessionId),
  );

  const payoutLines = result.matched.filter((m) => m.type === 'debet');
  const report: DayReport = {
    account,
    day,
    totals,
    ...(input.balancesNow ? { balancesNow: input.balancesNow } : {}),
    payoutsMatched: { count: payoutLines.length, amount: payoutLines.reduce((s, m) => s + m.amount, 0) },
    matched: result.matched,
    found: result.found.map((d) => all[d.key]!),
    settled: result.settled,
    other: result.other.map(({ bankSystemId, type, amount, purpose }) => ({
      bankSystemId,
      type,
      amount,
      purpose,
    })),
    openDifferences: Object.values(all).filter((d) => d.state === 'open').length,
  };
  const dir = dayDir(dataDir, account, day);
  const files = {
    csv: join(dir, `reconciliation-${account}-${day}.csv`),
    json: join(dir, `reconciliation-${account}-${day}.json`),
    oneC: join(dir, `1c-${account}-${day}.txt`),
  };
  writePrivateFileAtomic(files.csv, reportCsv(report));
  writePrivateFileAtomic(files.json, reportJson(report));
  writePrivateFileAtomic(
    files.oneC,
    oneCExport({ day, account, us: input.holder, lines, matched: result.matched, totals, createdAt: now }),
  );
  const outcome: DayOutcome = {
    account,
    day,
    outcome: 'reconciled',
    closing: totals.closing,
    open: report.openDifferences,
    found: result.found.length,
    settled: result.settled.length,
    files,
    at,
  };
  writeDayOutcome(dataDir, outcome);
  return outcome;
}

/** An operator closes an open difference with a reason; who is the person their key proved. */
export function resolveDifference(
  dataDir: string,
  account: string,
  key: string,
  by: { person: string; reason: string; at: Date },
): DifferenceRecord {
  const all = readDifferences(dataDir, account);
  const d = all[key];
  if (!d) throw new Error(`no difference ${key} on account ${account} (payrun reconcile status lists them)`);
  if (d.state !== 'open') throw new Error(`difference ${key} is already ${d.state}`);
  if (!by.reason.trim()) throw new Error('--reason: say why the difference is resolved');
  all[key] = {
    ...d,
    state: 'resolved',
    resolved: { by: by.person, reason: by.reason.trim(), at: by.at.toISOString() },
  };
  writeDifferences(dataDir, account, all);
  return all[key];
}
