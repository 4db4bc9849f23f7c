import { z } from 'zod';
import type { DifferenceStatement, SignedStatement } from '../shared/approval-contract';
import { signedStatementSchema } from '../shared/approval-proofs';

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

/** A day's outcome as the reconciliation store keeps it (src/reconcile/store.ts's DayOutcome types `statement`). */
export interface ReconcileDayResult {
  account: string;
  day: string;
  outcome: 'reconciled' | 'statement_unavailable';
  closing?: number;
  open: number;
  found: number;
  settled: number;
  /** The reports: paths on the host that wrote them (folder store), else the names the store keeps them by. */
  files?: { csv: string; json: string; oneC: string };
  at: string;
  error?: string;
  /** The statement this run matched: the next run of the day compares against it. */
  statement?: unknown;
}

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

// ---------------------------------------------------------------- a resolution's rules

const differenceStatement = z.strictObject({
  v: z.literal(1),
  kind: z.literal('difference'),
  decision: z.literal('resolve'),
  account: z.string().refine((a) => /^\d{20}$/.test(a), 'expected a 20-digit account'),
  key: z.string().min(3).max(200),
  reason: z.string().refine((r) => r.trim().length > 0 && r.length <= 500, 'a reason, 1–500 characters'),
  person: z.string().min(1).max(64),
  at: z.string().refine((a) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(a), 'a UTC time'),
  via: z.string().min(1).max(64).optional(),
});
// A person's own key (the command line) or their passkey (the console, issue 39): exactly one proof, which
// the worker checks against the policy's `proofs.resolve` (src/reconcile/resolve.ts).
const signedDifference = signedStatementSchema(differenceStatement);

/** A signed resolution, or why the input is not one (its signature and signer are the worker's to judge). */
export function parseDifferenceResolution(
  raw: unknown,
): { ok: true; value: SignedStatement<DifferenceStatement> } | { ok: false; reason: string } {
  const r = signedDifference.safeParse(raw);
  if (r.success) return { ok: true, value: r.data as SignedStatement<DifferenceStatement> };
  const issue = r.error.issues[0]!;
  return { ok: false, reason: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}
