import { proxyActivities } from '@temporalio/workflow';
import type { createBankActivities } from '../../activities/bank';
import type { RoutingActivities } from '../../activities/routing';
import { REFUND_READ, REFUND_WRITE_ONCE, TEMPORAL_READ } from '../shared/activity-options';

// The refund's activities: one bank write under the refund's identity key, bank reads, and the look-up
// of earlier runs of its reference.

type Acts = ReturnType<typeof createBankActivities>;

export const { refundSession } = proxyActivities<Acts>(REFUND_WRITE_ONCE);
export const { getSession } = proxyActivities<Acts>(REFUND_READ);
export const { earlierRefundRuns } = proxyActivities<RoutingActivities>(TEMPORAL_READ);
