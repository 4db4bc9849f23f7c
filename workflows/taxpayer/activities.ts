import { proxyActivities } from '@temporalio/workflow';
import type { createBankActivities } from '../../activities/bank';
import { NPD_CHECK, NPD_STATUS } from '../shared/activity-options';

// The taxpayer workflow's activities: the bank's npd/check and its status, each with its own retry owner.

type Acts = ReturnType<typeof createBankActivities>;

export const { npdCheck } = proxyActivities<Acts>(NPD_CHECK);
export const { npdRequestStatus } = proxyActivities<Acts>(NPD_STATUS);
