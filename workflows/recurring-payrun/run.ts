import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import { moscowDay } from '../shared/approval';
import { submitterOn } from './activities';
import type { PeriodOutcome, RecurringPayrunInput, RecurringStatus } from './contract';

/** Set by the schedule on each run it starts, a backfill's too: the period's nominal time, not when it ran. */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/** One period of a recurring payrun: its Moscow date, then its batch submitted by the watcher's process. */
export class RecurringRun {
  readonly state: RecurringStatus = { stage: 'submitting' };

  constructor(private readonly input: RecurringPayrunInput) {}

  /** The period: the schedule's nominal time as a Moscow date; a run started by hand takes its own start. */
  period(): string {
    const info = workflowInfo();
    const nominal = info.typedSearchAttributes.get(SCHEDULED_START) ?? info.startTime;
    return moscowDay(nominal.toISOString());
  }

  async run(): Promise<PeriodOutcome> {
    const period = this.period();
    this.state.period = period;
    const { submitScheduledPeriod } = submitterOn(this.input.submitQueue);
    const outcome = await submitScheduledPeriod({ ...this.input, period });
    this.state.stage = 'done';
    this.state.outcome = outcome;
    return outcome;
  }
}
