import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReconcileDayResult, StatementWait } from '../../workflows/reconciliation/contract';
import { reconciliationWorkflowId } from '../../workflows/reconciliation/contract';
import type { DayReport } from '../../src/reconcile/report';
import type { Stack } from './stack';

/** The sandbox's default deposit (security) account: payouts are debited from it. */
export const DEPOSIT_ACCOUNT = '40702810700000000002';

/** An admin call to the sandbox over HTTP, as an operator's curl would make it. */
export async function sandboxAdmin(
  stack: Stack,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.sandbox.url}/__admin/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`sandbox admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Quick statement retries for tests (the defaults wait minutes between attempts). */
export const QUICK_WAIT: StatementWait = {
  initialIntervalMs: 300,
  maximumIntervalMs: 1_000,
  maxWaitMs: 120_000,
};

/** Runs (or re-runs) one day's reconciliation workflow on the stack's worker and returns its outcome. */
export async function reconcileDayNow(
  stack: Stack,
  day: string,
  statementWait: StatementWait = QUICK_WAIT,
  account = DEPOSIT_ACCOUNT,
): Promise<ReconcileDayResult> {
  return stack.client.workflow.execute('reconciliationDayWorkflow', {
    workflowId: reconciliationWorkflowId(account, day),
    taskQueue: stack.taskQueue,
    args: [{ account, day, statementWait }],
  }) as Promise<ReconcileDayResult>;
}

export function readDayReport(outcome: ReconcileDayResult): DayReport {
  if (!outcome.files) throw new Error(`${outcome.day}: no report (${outcome.outcome})`);
  return JSON.parse(readFileSync(outcome.files.json, 'utf8')) as DayReport;
}

/** The calls of one bank method (a path part) the sandbox has answered or refused so far. */
export async function bankCalls(stack: Stack, method = 'report/account_statement'): Promise<number> {
  const { counts } = (await sandboxAdmin(stack, 'requests')) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([k]) => k.includes(method))
    .reduce((s, [, n]) => s + n, 0);
}

export const reportDir = (dataDir: string, account = DEPOSIT_ACCOUNT) =>
  join(dataDir, 'reconciliation', account);
