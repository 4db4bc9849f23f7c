import { proxyActivities } from '@temporalio/workflow';
import type { createScheduleActivities } from '../../activities/schedules';
import { PERIOD_SUBMIT } from '../shared/activity-options';

/** The period's one activity, on the submitter's queue (the watcher's process), not the worker's. */
export const submitterOn = (taskQueue: string) =>
  proxyActivities<ReturnType<typeof createScheduleActivities>>({ ...PERIOD_SUBMIT, taskQueue });
