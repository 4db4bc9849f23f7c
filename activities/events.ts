import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { EventEndpoint, EventType } from '../src/config/events';
import { batchEvent, payoutEvents, payoutReturnedEvent, type PayrunEvent } from '../src/events/body';
import { deliverPending, giveUpHead, type DeliveryCounters } from '../src/events/deliver';
import { nudgeDelivery, type DeliveryOptions } from '../src/events/nudge';
import { writeEvents } from '../src/events/outbox';
import { loadBatchPaths } from '../src/batch/services/config';
import { batchStoreFor } from '../src/batch/store/open';
import type { BatchRowOutcome } from '../workflows/batch/contract';
import type { PayoutStatus } from '../workflows/payout/contract';

export interface EventDeps {
  endpoints: readonly EventEndpoint[];
  client: Client;
  taskQueue: string;
  /** PAYRUN_DATA_DIR at call time when absent. */
  dataDir?: string;
  counters?: DeliveryCounters;
  /** What delivery workflows start with (tests shorten the retry policy). */
  delivery?: DeliveryOptions;
}

const endpointOf = (deps: EventDeps, name: string) => {
  const e = deps.endpoints.find((x) => x.name === name);
  // A workflow for an endpoint no longer configured: nothing to send, nothing to retry.
  if (!e) log.warn('event delivery for an endpoint not configured on this worker', { endpoint: name });
  return e;
};

/** The delivery workflow's activities: send an endpoint's pending events, or give up the oldest. */
export function createEventActivities(deps: EventDeps) {
  const dir = () => deps.dataDir ?? loadBatchPaths().dataDir;
  return {
    async deliverEvents({ endpoint }: { endpoint: string }): Promise<{ sent: number }> {
      const e = endpointOf(deps, endpoint);
      if (!e) return { sent: 0 };
      const ctx = Context.current();
      return deliverPending(dir(), e, {
        heartbeat: (sent) => ctx.heartbeat(sent),
        counters: deps.counters,
        signal: ctx.cancellationSignal,
      });
    },
    async giveUpHeadEvent({ endpoint }: { endpoint: string }): Promise<string | undefined> {
      const e = endpointOf(deps, endpoint);
      const id = e && giveUpHead(dir(), e);
      if (id)
        log.warn('event given up after its retries; `payrun events replay` resends it', { endpoint, id });
      return id;
    },
  };
}

/**
 * Writes the events of what an activity just recorded into the outbox (only types some endpoint takes),
 * then nudges the delivery workflows. Runs inside the recording activity, before it completes: a worker
 * that dies in between retries the whole activity, and the outbox keeps each id once.
 */
export function eventEmitter(deps: EventDeps) {
  const dir = () => deps.dataDir ?? loadBatchPaths().dataDir;
  const wanted = (t: EventType) => deps.endpoints.some((e) => e.types.has(t));
  const withInn = deps.endpoints.some((e) => e.includeInn);
  const emit = async (events: PayrunEvent[]) => {
    if (
      writeEvents(
        dir(),
        events.filter((e) => wanted(e.type)),
      ) > 0
    )
      await nudgeDelivery(deps.client, deps.taskQueue, deps.endpoints, deps.delivery);
  };
  const now = () => new Date().toISOString();
  return {
    /** A batch's recorded rows: each row this batch paid gives its payout's events. */
    rows: (batchId: string, outcomes: BatchRowOutcome[]) =>
      emit(outcomes.flatMap((o) => payoutEvents(batchId, o, withInn))),
    submitted: (batchId: string) => emit([batchEvent('batch.submitted', { batchId }, now(), 1)]),
    decided: (batchId: string, decision: string, by: string, reason?: string) =>
      decision === 'approve' || decision === 'reject'
        ? emit([
            batchEvent(
              decision === 'approve' ? 'batch.approved' : 'batch.rejected',
              {
                batchId,
                by,
                ...(reason ? { reason } : {}),
              },
              now(),
              2,
              `${decision}:${by}`,
            ),
          ])
        : Promise.resolve(),
    /** Counts and amounts by row state, read back from the store's recorded outcomes. */
    finished: async (batchId: string, cancelled: boolean) => {
      const counts: Record<string, number> = {};
      const amountsKopecks: Record<string, number> = {};
      for await (const { outcome } of batchStoreFor(dir()).outcomes(batchId)) {
        counts[outcome.state] = (counts[outcome.state] ?? 0) + 1;
        amountsKopecks[outcome.state] = (amountsKopecks[outcome.state] ?? 0) + outcome.amount;
      }
      const data = { batchId, counts, amountsKopecks, ...(cancelled ? { reason: 'cancelled' } : {}) };
      await emit([batchEvent('batch.finished', data, now(), 1_000_000)]);
    },
    /** The hand-over for the return workflow (issue 37): build the event with payoutReturnedEvent. */
    returned: (event: PayrunEvent) => emit([event]),
    /** Whether payout events carry the INN (some endpoint asked): payoutReturnedEvent's second argument. */
    withInn,
  };
}

/** The outcome as the store keeps it: the events' source is not stored. */
export const withoutEventSource = (outcomes: BatchRowOutcome[]): BatchRowOutcome[] =>
  outcomes.map(({ events: _events, ...o }) => o);

/**
 * A return's `payout.returned`, from the paid payout's own record: its next place after its last change, so a
 * retried activity writes the same id (the outbox keeps the first).
 */
export function returnedEvent(status: PayoutStatus, withInn: boolean): PayrunEvent {
  return payoutReturnedEvent(
    {
      reference: status.reference,
      ...(status.batchId ? { batchId: status.batchId } : {}),
      started: status.timestamps.started ?? '',
      sequence: (status.changes?.length ?? 0) + 1,
      at: new Date().toISOString(), // when payrun recorded the return; the bank's own date is in the report
      amountKopecks: status.amount,
      bank: {
        ...(status.bank.sessionId ? { sessionId: status.bank.sessionId } : {}),
        ...(status.bank.payoutId ? { payoutId: status.bank.payoutId } : {}),
      },
      payee: status.payee,
    },
    withInn,
  );
}
