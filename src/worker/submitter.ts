/**
 * The submit queue's worker: activities only (no workflow bundle), in the process that has the batch
 * folders and a service key, i.e. beside the watcher. Kept apart from src/worker so the watcher loads
 * none of the payrun worker's parts.
 */
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { TemporalSetup } from '../temporal';
import { workerConnectionOptions } from '../temporal/worker-options';
import { createScheduleActivities } from '../../activities/schedules';
import { submitQueueOf } from '../../workflows/recurring-payrun/contract';
import type { PeriodSubmitterDeps } from '../schedules/submit-period';

export async function createSubmitterWorker(
  setup: TemporalSetup,
  connection: NativeConnection,
  deps: PeriodSubmitterDeps,
): Promise<Worker> {
  return Worker.create({
    ...workerConnectionOptions(setup, connection),
    taskQueue: submitQueueOf(deps.taskQueue),
    activities: createScheduleActivities(deps),
    // A period is a few seconds of streaming into the store; two at once is plenty for a department.
    maxConcurrentActivityTaskExecutions: 2,
  });
}
