import { setHandler } from '@temporalio/workflow';
import { invalidInput } from '../shared/parse';
import {
  parseRecurringInput,
  recurringStatusQuery,
  type PeriodOutcome,
  type RecurringPayrunInput,
} from './contract';
import { RecurringRun } from './run';

export type { RecurringPayrunInput, PeriodOutcome } from './contract';

/**
 * One period of a recurring payrun (`payrun schedule create`): a Temporal Schedule starts it on the
 * preparer's calendar. It moves no money: the batch it submits waits for its approval like any other.
 */
export async function recurringPayrunWorkflow(raw: RecurringPayrunInput): Promise<PeriodOutcome> {
  const parsed = parseRecurringInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const run = new RecurringRun(parsed.value);
  setHandler(recurringStatusQuery, () => run.state);
  return run.run();
}
