import type { Client } from '@temporalio/client';
import type { EventEndpoint } from '../config/events';
import {
  eventOutboxWorkflowId,
  outboxWrittenSignal,
  type EventOutboxInput,
} from '../../workflows/event-outbox/contract';

/** Options the delivery workflows start with (tests shorten the retry policy). */
export type DeliveryOptions = Omit<EventOutboxInput, 'endpoint' | 'pending'>;

/**
 * Wakes each endpoint's delivery workflow, starting it if it is not running (signal-with-start): the
 * worker at its start, the activities that wrote events, `payrun events replay`. Costs the endpoint's
 * workflow two events; nothing on a payout's or a batch's history.
 */
export async function nudgeDelivery(
  client: Client,
  taskQueue: string,
  endpoints: readonly EventEndpoint[],
  options: DeliveryOptions = {},
): Promise<void> {
  await Promise.all(
    endpoints.map((e) =>
      client.workflow.signalWithStart('eventOutboxWorkflow', {
        workflowId: eventOutboxWorkflowId(taskQueue, e.name),
        taskQueue,
        args: [{ endpoint: e.name, ...options }],
        signal: outboxWrittenSignal,
        signalArgs: [],
      }),
    ),
  );
}
