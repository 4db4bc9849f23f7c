import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../../activities/diagnostics';
import { DIAGNOSTIC } from '../shared/activity-options';

// The connectivity check's one activity: the worker describes itself (no bank, no money).

export const { describeWorker } = proxyActivities<typeof activities>(DIAGNOSTIC);
