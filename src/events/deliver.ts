/**
 * Sends one endpoint's pending events, oldest first, one at a time. A refused event holds back the later
 * events of its payout (or batch), so none overtakes an earlier one, while other payouts' events go on;
 * an endpoint that does not answer at all ends the round. Then the activity's retry policy tries again
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

/** What an event keeps its order within: its payout, or its batch. */
const orderOf = (event: PayrunEvent) =>
  event.payout ? `payout:${event.payout.reference}` : event.batch ? `batch:${event.batch.batchId}` : event.id;

export async function deliverPending(
  dataDir: string,
  endpoint: EventEndpoint,
  opts: { heartbeat?: (sent: number) => void; counters?: DeliveryCounters; signal?: AbortSignal } = {},
): Promise<{ sent: number }> {
  const pending = pendingFor(dataDir, endpoint.name, (e) => endpoint.types.has(e.type));
  opts.counters?.outboxAge(endpoint.name, oldestAgeSeconds(pending));
  let sent = 0;
  const held = new Set<string>();
  const delivered = new Set<string>();
  let first: string | undefined;
  for (const { event } of pending) {
    const order = orderOf(event);
    if (held.has(order)) continue;
    const body = bodyFor(endpoint, event);
    let answer: string;
    let answered = false;
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
      answered = true;
      answer = res.ok ? '' : `HTTP ${res.status}`;
    } catch (err) {
      answer = (err as Error).message;
    }
    if (answer) {
      opts.counters?.failed(endpoint.name);
      first ??= `event ${event.id} (${event.type}) not taken: ${answer}`;
      held.add(order);
      // No answer at all (down, or too slow): every other event would wait out the same timeout.
      if (!answered) break;
      continue;
    }
    mark(dataDir, 'delivered', endpoint.name, event.id);
    delivered.add(event.id);
    sent++;
    opts.counters?.delivered(endpoint.name);
    opts.heartbeat?.(sent);
  }
  if (first) {
    const left = pending.filter((p) => !delivered.has(p.event.id));
    opts.counters?.outboxAge(endpoint.name, oldestAgeSeconds(left));
    const others = held.size > 1 ? ` (and the events of ${held.size - 1} more held back)` : '';
    throw new DeliveryFailed(`endpoint ${endpoint.name}: ${first}${others}; ${sent} others sent`);
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
