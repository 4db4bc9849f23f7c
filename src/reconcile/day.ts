import type { AccountStatement } from '../bank/types/reports';
import { addDays } from './days';
import { type BankLine, matchDay, type PayrunPayout, type StatementTotals } from './match';
import { type AccountHolder, oneCExport } from './onec';
import { type DayReport, reportCsv, reportJson } from './report';
import { snapshotOf } from './snapshot';
import type { DayOutcome, DifferenceRecord, ReconcileStore, ResolutionEvidence } from './store';
import { noPulse, type Pulse } from '../pulse';

/** How long a matched session is remembered: longer than the three days' window payouts are listed in. */
const MATCHED_KEPT_DAYS = 30;

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
  store: ReconcileStore;
  account: string;
  day: string;
  statement: AccountStatement;
  payouts: PayrunPayout[];
  holder: AccountHolder;
  balancesNow?: DayReport['balancesNow'];
  now: Date;
  /** Called between the steps (src/pulse.ts): an attempt the server gave up on stops before it writes. */
  pulse?: Pulse;
}

/**
 * Matches one day and records it: new differences open (a key seen before keeps its state: a re-run
 * reports nothing twice), earlier ones the statement settles are marked matched, and the day's
 * reports are written. Returns the day's outcome as day.json holds it.
 */
export async function reconcileDay(input: ReconcileDayInput): Promise<DayOutcome> {
  const { store, account, day, now } = input;
  const pulse = input.pulse ?? noPulse;
  const { lines, totals } = statementLines(input.statement);
  const earlier = await store.readDayOutcome(account, day);
  const result = matchDay({
    account,
    day,
    lines,
    totals,
    previousClosing: (await store.readDayOutcome(account, addDays(day, -1)))?.closing,
    payouts: input.payouts,
    open: Object.values(await store.readDifferences(account)).filter((d) => d.state === 'open'),
    ...(earlier?.statement ? { previous: earlier.statement } : {}),
  });
  const all = await store.readDifferences(account);
  pulse();
  const at = now.toISOString();
  for (const d of result.found) all[d.key] ??= { ...d, state: 'open', foundAt: at };
  for (const s of result.settled) {
    const d = all[s.key];
    if (d?.state === 'open')
      all[s.key] = { ...d, state: 'matched', matched: { day: s.day, bankSystemId: s.bankSystemId } };
  }
  await store.writeDifferences(account, all);
  await rememberMatchedSessions(
    store,
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
  pulse();
  const files = {
    csv: await store.saveReport(account, day, `reconciliation-${account}-${day}.csv`, reportCsv(report)),
    json: await store.saveReport(account, day, `reconciliation-${account}-${day}.json`, reportJson(report)),
    oneC: await store.saveReport(
      account,
      day,
      `1c-${account}-${day}.txt`,
      oneCExport({
        day,
        account,
        us: input.holder,
        lines,
        matched: result.matched,
        payouts: input.payouts,
        totals,
        createdAt: now,
      }),
    ),
  };
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
    statement: snapshotOf(lines, totals),
  };
  pulse();
  await store.writeDayOutcome(outcome);
  return outcome;
}

/**
 * Remembers the sessions a day matched, forgetting those matched more than MATCHED_KEPT_DAYS before it.
 * A re-run replaces the day's own: a session the corrected statement no longer shows is not remembered.
 */
async function rememberMatchedSessions(
  store: ReconcileStore,
  account: string,
  day: string,
  sessions: string[],
): Promise<void> {
  const all = await store.readMatchedSessions(account);
  const oldest = addDays(day, -MATCHED_KEPT_DAYS);
  for (const [session, on] of Object.entries(all)) if (on < oldest || on === day) delete all[session];
  for (const session of sessions) all[session] ??= day;
  await store.writeMatchedSessions(account, all);
}

/**
 * An operator closes an open difference with a reason; who is the person the worker proved under its
 * policy (src/reconcile/resolve.ts), and the evidence is their signed statement.
 */
export async function resolveDifference(
  store: ReconcileStore,
  account: string,
  key: string,
  by: { person: string; reason: string; at: Date; evidence: ResolutionEvidence },
): Promise<DifferenceRecord> {
  const all = await store.readDifferences(account);
  const d = all[key];
  if (!d) throw new Error(`no difference ${key} on account ${account} (payrun reconcile status lists them)`);
  if (d.state !== 'open') throw new Error(`difference ${key} is already ${d.state}`);
  if (!by.reason.trim()) throw new Error('--reason: say why the difference is resolved');
  all[key] = {
    ...d,
    state: 'resolved',
    resolved: { by: by.person, reason: by.reason.trim(), at: by.at.toISOString(), ...by.evidence },
  };
  await store.writeDifferences(account, all);
  return all[key];
}
