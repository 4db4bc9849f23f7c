import type { DayOutcome } from '../../src/reconcile/store';

// The reconciliation workflows' contract: ids, inputs and results (docs/reconciliation.md).

/** One account's one business day: re-running a day is the same workflow id (one at a time). */
export const reconciliationWorkflowId = (account: string, day: string) => `reconcile-${account}-${day}`;

/** The Temporal Schedule that reconciles the previous Moscow day every morning. */
export const RECONCILIATION_SCHEDULE_ID = 'payrun-reconciliation';
/** The workflow id each scheduled run starts with (the schedule appends its time). */
export const RECONCILIATION_DUE_WORKFLOW_ID = 'reconcile-due';

/** How long to wait for a statement that is not ready or fails (the bank's retryable errors). */
export interface StatementWait {
  /** First retry after this long; default 1 minute. */
  initialIntervalMs?: number;
  /** Retries at most this far apart; default 15 minutes. */
  maximumIntervalMs?: number;
  /** Give up after this long and record the day `statement_unavailable`; default 6 hours. */
  maxWaitMs?: number;
}

export interface ReconcileDayInput {
  /** The 20-digit account the statement is of. */
  account: string;
  /** The Moscow business day, YYYY-MM-DD. */
  day: string;
  statementWait?: StatementWait;
}

/** What every step of a day's reconciliation names. */
export interface ReconcileDayStep {
  account: string;
  day: string;
}

export type ReconcileDayResult = DayOutcome;

export interface ReconcileDueInput {
  /** Accounts to reconcile; empty or absent: the deposit account(s) wallet/balance names. */
  accounts?: string[];
  /** Never reconcile days before this one (the day payrun started paying from the account). */
  firstDay: string;
  /** Catch up at most this many days back; default 10. */
  maxDays?: number;
  statementWait?: StatementWait;
}

export interface ReconcileDueResult {
  /** The day before the run's Moscow date: the latest day due. */
  upTo: string;
  days: ReconcileDayResult[];
}

export interface DueDaysInput {
  account: string;
  firstDay: string;
  upTo: string;
  maxDays: number;
}

/** One resolution at a time per difference; a later one (after a refusal) may use the same id. */
export const resolveDifferenceWorkflowId = (account: string, key: string) =>
  `reconcile-resolve-${account}-${key}`;

/** What the worker recorded: who (proven under the worker's policy), why, when, under which policy. */
export interface ResolvedDifference {
  account: string;
  key: string;
  by: string;
  reason: string;
  at: string;
  policyVersion: string;
}

/** The type of the failure that refuses a resolution (not a person of the worker's policy, no such difference…). */
export const RESOLVE_REFUSED_TYPE = 'resolve_refused';
