/**
 * Sends one endpoint's pending events, oldest first, one at a time: a failure stops the run there (a
 * payout's later event never overtakes an earlier one), and the activity's retry policy tries again
 * with backoff (workflows/event-outbox/). Each event goes under its own id every time, signed anew.
 */
import type { EventEndpoint } from '../config/events';
import type { PayrunEvent } from './body';
import { mark, oldestAgeSeconds, pendingFor } from './outbox';
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';

/** A receiver that takes longer than this is treated as down; the event is sent again later. */
const SEND_TIMEOUT_MS = 10_000;

export interface DeliveryCounters {
  delivered(endpoint: string): void;
  failed(endpoint: string): void;
  outboxAge(endpoint: string, seconds: number): void;
}

export class DeliveryFailed extends Error {}

/** What one endpoint receives of an event: the INN only if it asked for it. */
export function bodyFor(endpoint: EventEndpoint, event: PayrunEvent): string {
  if (!event.payout?.payee.inn || endpoint.includeInn) return JSON.stringify(event);
  const { inn: _inn, ...payee } = event.payout.payee;
  return JSON.stringify({ ...event, payout: { ...event.payout, payee } });
}

export async function deliverPending(
  dataDir: string,
  endpoint: EventEndpoint,
  opts: { heartbeat?: (sent: number) => void; counters?: DeliveryCounters; signal?: AbortSignal } = {},
): Promise<{ sent: number }> {
  const pending = pendingFor(dataDir, endpoint.name, (e) => endpoint.types.has(e.type));
  opts.counters?.outboxAge(endpoint.name, oldestAgeSeconds(pending));
  let sent = 0;
  for (const { event } of pending) {
    const body = bodyFor(endpoint, event);
    let answer: string;
    try {
      const res = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signatureHeader(endpoint.secret, body, Math.floor(Date.now() / 1000)),
          [EVENT_ID_HEADER]: event.id,
          [EVENT_TYPE_HEADER]: event.type,
        },
        body,
        signal: AbortSignal.any([
          AbortSignal.timeout(SEND_TIMEOUT_MS),
          ...(opts.signal ? [opts.signal] : []),
        ]),
      });
      await res.arrayBuffer().catch(() => undefined);
      answer = res.ok ? '' : `HTTP ${res.status}`;
    } catch (err) {
      answer = (err as Error).message;
    }
    if (answer) {
      opts.counters?.failed(endpoint.name);
      opts.counters?.outboxAge(endpoint.name, oldestAgeSeconds(pending.slice(sent)));
      throw new DeliveryFailed(
        `endpoint ${endpoint.name}: event ${event.id} (${event.type}) not taken: ${answer}`,
      );
    }
    mark(dataDir, 'delivered', endpoint.name, event.id);
    sent++;
    opts.counters?.delivered(endpoint.name);
    opts.heartbeat?.(sent);
  }
  opts.counters?.outboxAge(endpoint.name, 0);
  return { sent };
}

/** After three days of failures the event at the head is given up (replay resends it), so the rest go. */
export function giveUpHead(dataDir: string, endpoint: EventEndpoint): string | undefined {
  const head = pendingFor(dataDir, endpoint.name, (e) => endpoint.types.has(e.type))[0];
  if (head) mark(dataDir, 'dead', endpoint.name, head.event.id);
  return head?.event.id;
}
