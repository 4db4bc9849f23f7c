/**
 * The reconciliation store, per account: every difference ever found (by key, with its state), the
 * sessions statements matched, and per day its inputs (the statement, payrun's payouts), its outcome
 * (with the closing balance the next day's opening must equal) and the reports accounting reads.
 * Two implementations, chosen with the batch store (PAYRUN_BATCH_STORE): the local folder
 * (store/folder.ts, one host) and PostgreSQL (store/postgres.ts, workers on any number of hosts: one
 * activity writes the statement, the next may read it on another host). Inputs and differences are
 * sealed with the payload keys in both (they hold names and account numbers).
 */
import type { DifferenceStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import type { Difference } from './match';
import type { StatementSnapshot } from './snapshot';
import type { ReconcileDayResult } from '../../workflows/reconciliation/contract';

export type DifferenceState = 'open' | 'matched' | 'resolved';

export interface DifferenceRecord extends Difference {
  state: DifferenceState;
  /** When payrun first found it (ISO). */
  foundAt: string;
  /** A later statement's line that settled it. */
  matched?: { day: string; bankSystemId: string };
  /**
   * An operator's decision: who (a person of the worker's policy file, proven by their key), why, when,
   * and its evidence (absent in records written before the worker judged resolutions).
   */
  resolved?: { by: string; reason: string; at: string } & Partial<ResolutionEvidence>;
}

/** What a resolution was judged on: the person's signed statement and the worker's policy version. */
export interface ResolutionEvidence {
  statement: SignedStatement<DifferenceStatement>;
  policyVersion: string;
}

export interface DayOutcome extends ReconcileDayResult {
  /** The statement this run matched (ids, amounts, balances): the next run of the day compares against it. */
  statement?: StatementSnapshot;
}

/** What one day's steps hand each other: the bank's statement, then payrun's payouts of the day. */
export type DayInputKind = 'statement' | 'payouts';

export interface ReconcileStore {
  /** Where the store is, for messages (never a password). */
  readonly where: string;
  /** Whether the report paths it returns are files every process reads (the folder store, one disk). */
  readonly sharesFolders: boolean;

  readDifferences(account: string): Promise<Record<string, DifferenceRecord>>;
  writeDifferences(account: string, all: Record<string, DifferenceRecord>): Promise<void>;
  /** Sessions a statement matched, by the day it matched them on. */
  readMatchedSessions(account: string): Promise<Record<string, string>>;
  writeMatchedSessions(account: string, all: Record<string, string>): Promise<void>;

  writeDayInput(account: string, day: string, kind: DayInputKind, value: unknown): Promise<void>;
  /** undefined when that step has not written it. */
  readDayInput<T>(account: string, day: string, kind: DayInputKind): Promise<T | undefined>;
  writeDayOutcome(outcome: DayOutcome): Promise<void>;
  readDayOutcome(account: string, day: string): Promise<DayOutcome | undefined>;
  /** Days with an outcome 'reconciled', oldest first. */
  reconciledDays(account: string): Promise<string[]>;
  /** Days with any outcome (reconciled or statement_unavailable), oldest first. */
  outcomeDays(account: string): Promise<string[]>;
  /** Accounts the store holds anything of (the metrics read every one). */
  accounts(): Promise<string[]>;

  /** Keeps one of a day's reports; returns what DayOutcome.files names it by. */
  saveReport(account: string, day: string, name: string, content: Buffer | string): Promise<string>;
  /** Writes a kept report to `to` (owner-only); false when the store has none by that name. */
  fetchReport(account: string, day: string, name: string, to: string): Promise<boolean>;
}

const ACCOUNT = /^\d{20}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const REPORT_NAME = /^[\w.-]+$/;

export function checkAccount(account: string): string {
  if (!ACCOUNT.test(account)) throw new Error(`account "${account}": must be 20 digits`);
  return account;
}

export function checkDay(day: string): string {
  if (!DAY.test(day)) throw new Error(`day "${day}": must be YYYY-MM-DD`);
  return day;
}

export function checkReportName(name: string): string {
  if (!REPORT_NAME.test(name))
    throw new Error(`report name "${name}": letters, digits, '.', '-' and '_' only`);
  return name;
}

export const isAccount = (name: string): boolean => ACCOUNT.test(name);
