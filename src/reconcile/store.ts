/**
 * The reconciliation store, per account: `<dataDir>/reconciliation/<account>/`
 * - differences.json: every difference ever found, by key, with its state (open, matched, resolved);
 * - days/<day>/: the day's inputs (statement.json, payouts.json), day.json (the outcome and the
 *   closing balance the next day's opening must equal), and the reports accounting reads.
 * Inputs and differences are sealed with the payload keys (they hold names and account numbers, like
 * the batch store); the reports are plaintext, owner-only, like batch reports.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFileAtomic } from '../private-fs';
import { isSealedText, type KeyRing, openText, sealText, storeKeyRing } from '../temporal';
import { addDays } from './days';
import type { Difference } from './match';

export type DifferenceState = 'open' | 'matched' | 'resolved';

export interface DifferenceRecord extends Difference {
  state: DifferenceState;
  /** When payrun first found it (ISO). */
  foundAt: string;
  /** A later statement's line that settled it. */
  matched?: { day: string; bankSystemId: string };
  /** An operator's decision: who (a person the policy file knows, proven by their key), why, when. */
  resolved?: { by: string; reason: string; at: string };
}

export interface DayOutcome {
  account: string;
  day: string;
  outcome: 'reconciled' | 'statement_unavailable';
  closing?: number;
  open: number;
  found: number;
  settled: number;
  files?: { csv: string; json: string; oneC: string };
  at: string;
  error?: string;
}

const ACCOUNT = /^\d{20}$/;

export function accountDir(dataDir: string, account: string): string {
  if (!ACCOUNT.test(account)) throw new Error(`account "${account}": must be 20 digits`);
  return join(dataDir, 'reconciliation', account);
}

export function dayDir(dataDir: string, account: string, day: string): string {
  const dir = join(accountDir(dataDir, account), 'days', day);
  ensurePrivateDir(dir);
  return dir;
}

/** The payload keys of the store's folder (the same keys as the process's Temporal payloads, else its dev key file). */
const rings = new Map<string, KeyRing>();
const ring = (dataDir: string): KeyRing =>
  rings.get(dataDir) ?? rings.set(dataDir, storeKeyRing(dataDir)).get(dataDir)!;

export function writeSealed(dataDir: string, file: string, value: unknown): void {
  writePrivateFileAtomic(file, sealText(ring(dataDir), JSON.stringify(value)));
}

export function readSealed<T>(dataDir: string, file: string): T {
  const text = readFileSync(file, 'utf8');
  return JSON.parse(isSealedText(text) ? openText(ring(dataDir), text) : text) as T;
}

const differencesFile = (dataDir: string, account: string) =>
  join(accountDir(dataDir, account), 'differences.json');

export function readDifferences(dataDir: string, account: string): Record<string, DifferenceRecord> {
  const file = differencesFile(dataDir, account);
  return existsSync(file) ? readSealed(dataDir, file) : {};
}

export function writeDifferences(
  dataDir: string,
  account: string,
  all: Record<string, DifferenceRecord>,
): void {
  ensurePrivateDir(accountDir(dataDir, account));
  writeSealed(dataDir, differencesFile(dataDir, account), all);
}

export function openDifferences(dataDir: string, account: string): DifferenceRecord[] {
  return Object.values(readDifferences(dataDir, account)).filter((d) => d.state === 'open');
}

export function writeDayOutcome(dataDir: string, outcome: DayOutcome): void {
  writePrivateFileAtomic(
    join(dayDir(dataDir, outcome.account, outcome.day), 'day.json'),
    JSON.stringify(outcome, null, 2),
  );
}

export function readDayOutcome(dataDir: string, account: string, day: string): DayOutcome | undefined {
  const file = join(accountDir(dataDir, account), 'days', day, 'day.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DayOutcome) : undefined;
}

const matchedFile = (dataDir: string, account: string) =>
  join(accountDir(dataDir, account), 'matched-sessions.json');
/** How long a matched session is remembered: longer than the three days' window payouts are listed in. */
const MATCHED_KEPT_DAYS = 30;

/** Sessions a statement matched, by the day it matched them on. */
export function readMatchedSessions(dataDir: string, account: string): Record<string, string> {
  const file = matchedFile(dataDir, account);
  return existsSync(file) ? readSealed(dataDir, file) : {};
}

export function rememberMatchedSessions(
  dataDir: string,
  account: string,
  day: string,
  sessions: string[],
): void {
  const all = readMatchedSessions(dataDir, account);
  const oldest = addDays(day, -MATCHED_KEPT_DAYS);
  for (const [session, on] of Object.entries(all)) if (on < oldest) delete all[session];
  for (const session of sessions) all[session] ??= day;
  writeSealed(dataDir, matchedFile(dataDir, account), all);
}

/** The closing balance of the day before, when that day was reconciled. */
export function previousClosing(dataDir: string, account: string, day: string): number | undefined {
  return readDayOutcome(dataDir, account, addDays(day, -1))?.closing;
}

/** The latest day reconciled (statement read and matched), or undefined when none was. */
export function lastReconciledDay(dataDir: string, account: string): string | undefined {
  const dir = join(accountDir(dataDir, account), 'days');
  if (!existsSync(dir)) return undefined;
  const days = readdirSync(dir)
    .filter((d) => readDayOutcome(dataDir, account, d)?.outcome === 'reconciled')
    .sort();
  return days.at(-1);
}

/** Accounts with a reconciliation folder (the metrics read every one). */
export function reconciledAccounts(dataDir: string): string[] {
  const dir = join(dataDir, 'reconciliation');
  return existsSync(dir) ? readdirSync(dir).filter((a) => ACCOUNT.test(a)) : [];
}
