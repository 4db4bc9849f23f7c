import { submitPeriod, type PeriodSubmitterDeps } from '../src/schedules/submit-period';
import type { PeriodOutcome, PeriodSubmission } from '../workflows/recurring-payrun/contract';

/**
 * A recurring payrun's one activity, registered by the process that holds the batch folders and a
 * service key (`payrun watch`), on the submit queue: the payrun worker has neither.
 */
export function createScheduleActivities(deps: PeriodSubmitterDeps) {
  return {
    async submitScheduledPeriod(input: PeriodSubmission): Promise<PeriodOutcome> {
      return submitPeriod(deps, input);
    },
  };
}
