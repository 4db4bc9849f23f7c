import { proxyActivities } from '@temporalio/workflow';
import type { createEventActivities } from '../../activities/events';
import { EVENT_DELIVERY, EVENT_GIVE_UP } from '../shared/activity-options';
import type { EventOutboxInput } from './contract';

// The delivery's activities. Temporal's retry policy owns the retries (one owner): the deliverer throws
// at the first event an endpoint does not take, and is tried again with backoff until it gives up.

type Acts = ReturnType<typeof createEventActivities>;

/** EVENT_DELIVERY, with the retries the workflow's input shortens (tests). */
export function eventActivities(input: EventOutboxInput) {
  const retry = EVENT_DELIVERY.retry!;
  const deliver = proxyActivities<Acts>({
    ...EVENT_DELIVERY,
    ...(input.heartbeatMs ? { heartbeatTimeout: input.heartbeatMs } : {}),
    ...(input.giveUpAfterMs ? { scheduleToCloseTimeout: input.giveUpAfterMs } : {}),
    retry: {
      ...retry,
      ...(input.firstRetryMs ? { initialInterval: input.firstRetryMs } : {}),
      ...(input.longestRetryMs ? { maximumInterval: input.longestRetryMs } : {}),
    },
  });
  const { giveUpHeadEvent } = proxyActivities<Acts>(EVENT_GIVE_UP);
  return { deliverEvents: deliver.deliverEvents, giveUpHeadEvent };
}
