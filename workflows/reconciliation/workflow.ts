import { ApplicationFailure } from '@temporalio/workflow';
import { parseDay } from './days';
import {
  parseDifferenceResolution,
  type ReconcileDayInput,
  type ReconcileDayResult,
  type ReconcileDueInput,
  type ReconcileDueResult,
  type ResolvedDifference,
} from './contract';
import { resolveSignedDifference } from './activities';
import { ReconciliationDayRun, ReconciliationDueRun } from './run';

// The reconciliation's three workflows share one contract: a day, the morning run over due days, and
// an operator's signed resolution of a difference. None has handlers: each runs to its end.

/** One account's one Moscow business day (ReconciliationDayRun). */
export async function reconciliationDayWorkflow(input: ReconcileDayInput): Promise<ReconcileDayResult> {
  const day = parseDay(input.day);
  if (!day || !/^\d{20}$/.test(input.account))
    throw ApplicationFailure.nonRetryable(
      `invalid input: account must be 20 digits and day a date YYYY-MM-DD (got ${input.account}, ${input.day})`,
      'invalid_input',
    );
  return new ReconciliationDayRun({ account: input.account, day }, input.statementWait).run();
}

/** What the Schedule starts every morning: every day not yet reconciled (ReconciliationDueRun). */
export async function reconciliationDueWorkflow(input: ReconcileDueInput): Promise<ReconcileDueResult> {
  return new ReconciliationDueRun(input).run(reconciliationDayWorkflow.name);
}

/**
 * An operator's signed resolution of a reconciliation difference, judged by the worker under the
 * worker's policy file and recorded with its evidence (the signed statement, the policy's version) —
 * the command line that sends it decides nothing. The statement is the input, so the history keeps it too.
 */
export async function resolveDifferenceWorkflow(raw: unknown): Promise<ResolvedDifference> {
  const parsed = parseDifferenceResolution(raw);
  if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.reason, 'invalid_input');
  return resolveSignedDifference(parsed.value);
}
