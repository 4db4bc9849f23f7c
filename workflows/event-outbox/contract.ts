import { defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { field, strictObject } from '../../src/domain/payout';
import { bool, DAY, HOUR, millis, parseWith, SECOND, type Result } from '../shared/parse';

// The event outbox's delivery workflow: one per endpoint, named after it (docs/events.md).

/** Per task queue too: two payrun deployments sharing a namespace each deliver from their own outbox. */
export const eventOutboxWorkflowId = (taskQueue: string, endpoint: string) =>
  `event-outbox-${taskQueue}-${endpoint}`;

/** Something was written to the outbox (or `payrun events replay` reopened a window): deliver now. */
export const outboxWrittenSignal = defineSignal<[]>('outboxWritten');

/** Unknown keys refused, naming them: a URL or secret has no place here (they stay in the worker's config). */
const input = strictObject({
  endpoint: field<string>(
    'expected an endpoint name',
    (v) => typeof v === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(v),
  ),
  /** The retry policy's first wait and its longest (tests shorten them; docs/events.md gives the defaults). */
  firstRetryMs: millis(100, HOUR).optional(),
  longestRetryMs: millis(SECOND, 6 * HOUR).optional(),
  /** How long a dead worker's delivery goes unnoticed. */
  heartbeatMs: millis(SECOND, HOUR).optional(),
  /**
   * How long one event is retried before it is given up (replay resends it). At least an hour: anyone
   * who may start workflows could otherwise start the delivery first and have events given up at once.
   */
  giveUpAfterMs: millis(HOUR, 7 * DAY).optional(),
  /** Carried over continue-as-new: a nudge not yet served. */
  pending: bool().optional(),
});

export type EventOutboxInput = z.infer<typeof input>;

export function parseEventOutboxInput(raw: unknown): Result<EventOutboxInput> {
  return parseWith(input, raw);
}
