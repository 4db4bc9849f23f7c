import { ScheduleAlreadyRunning, type Client, type ScheduleOptions } from '@temporalio/client';
import {
  RECONCILIATION_DUE_WORKFLOW_ID,
  RECONCILIATION_SCHEDULE_ID,
  type ReconcileDueInput,
} from '../../workflows/reconciliation/contract';

export interface ReconciliationScheduleOptions {
  taskQueue: string;
  input: ReconcileDueInput;
  /** HH:MM Moscow time; default 06:00. */
  at?: string;
  scheduleId?: string;
}

/**
 * The Temporal Schedule that reconciles the previous Moscow day every morning: it starts
 * reconciliationDueWorkflow, which also catches up every day a missed run left behind. The schedule's own
 * catch-up window (a day) covers a server that was down at the time; overlapping runs are skipped (the
 * running one reconciles every due day anyway). Created, or updated to these settings when it exists.
 */
export async function ensureReconciliationSchedule(
  client: Client,
  opts: ReconciliationScheduleOptions,
): Promise<string> {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(opts.at ?? '06:00');
  if (!m) throw new Error(`--at: a Moscow time HH:MM, e.g. 06:00 (got "${opts.at}")`);
  const scheduleId = opts.scheduleId ?? RECONCILIATION_SCHEDULE_ID;
  const spec = { calendars: [{ hour: Number(m[1]), minute: Number(m[2]) }], timezone: 'Europe/Moscow' };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'reconciliationDueWorkflow',
    workflowId: `${RECONCILIATION_DUE_WORKFLOW_ID}-${scheduleId}`,
    taskQueue: opts.taskQueue,
    args: [opts.input],
  };
  const options: ScheduleOptions = {
    scheduleId,
    spec,
    action,
    policies: { overlap: 'SKIP', catchupWindow: '1 day' },
  };
  try {
    await client.schedule.create(options);
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action }));
  }
  return scheduleId;
}
