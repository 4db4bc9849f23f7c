import { proxyActivities } from '@temporalio/workflow';
import type { RoutingActivities } from '../../activities/routing';
import type { WebhookInboxOptions } from './contract';

/**
 * The inbox's one activity: delivering an event to the workflows it belongs to, retried at the inbox's
 * pace until what is left of the event's reroute window (`remainingMs`) runs out. Its options differ per
 * event, so the proxy is made per reroute.
 */
export function rerouteActivity(remainingMs: number, options: Required<WebhookInboxOptions>) {
  const { rerouteBankEvent } = proxyActivities<RoutingActivities>({
    scheduleToCloseTimeout: remainingMs,
    startToCloseTimeout: Math.min(30_000, remainingMs),
    retry: {
      initialInterval: options.rerouteInitialIntervalMs,
      maximumInterval: options.rerouteMaxIntervalMs,
      backoffCoefficient: 2,
    },
  });
  return rerouteBankEvent;
}
