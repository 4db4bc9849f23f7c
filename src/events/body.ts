/**
 * The status events payrun sends the company's systems (docs/events.md has the schema): built from what
 * the batch records, pure. Ids are derived from what the event is (the payout run's start, its sequence
 * number), so writing the same event twice — a retried recording — gives the same id, and a receiver
 * that keeps ids takes it once.
 */
import { createHash } from 'node:crypto';
import type { EventType } from '../config/events';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import type { PayoutMethod } from '../domain';
import { maskDigits } from '../csv/report';

export interface PayrunEvent {
  id: string;
  type: EventType;
  /** When it happened, in the workflow's time (ISO 8601). */
  occurredAt: string;
  /** Per payout (or batch): its place among every state the payout entered; gaps are states with no event. */
  sequence: number;
  payout?: PayoutEventData;
  batch?: BatchEventData;
}

export interface PayoutEventData {
  reference: string;
  batchId?: string;
  amountKopecks: number;
  /** The payout's state when the event was recorded (its final one for the last event). */
  state: string;
  bank: { sessionId?: string; payoutId?: string };
  failure?: { code: string; bankWords?: string };
  payee: { method: PayoutMethod['type']; masked: string; inn?: string };
}

export interface BatchEventData {
  batchId: string;
  by?: string;
  reason?: string;
  counts?: Record<string, number>;
  amountsKopecks?: Record<string, number>;
}

const STATE_EVENTS: Partial<Record<string, EventType>> = {
  awaiting_approval: 'payout.awaiting_approval',
  awaiting_result: 'payout.confirmed',
  succeeded: 'payout.succeeded',
  returned: 'payout.returned',
  failed: 'payout.failed',
  expired: 'payout.failed',
  rejected: 'payout.rejected',
  limit_exceeded: 'payout.rejected',
  cancelled: 'payout.cancelled',
  needs_attention: 'payout.needs_attention',
};

export const eventId = (...parts: (string | number)[]) =>
  `evt_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;

/** Where the money goes, as the reports mask it: a card's BIN and last four, else the last four. */
export function maskedMethod(method: PayoutMethod): string {
  if (method.type === 'card') return maskDigits(method.cardNumber, 'card');
  if (method.type === 'bank_account') return `${method.bik} ${maskDigits(method.account, 'last4')}`;
  return `${maskDigits(method.phone, 'last4')} ${method.bankId}`;
}

/**
 * A recorded row's events: `created` for the payout's first state, then one per state that has one.
 * The INN only when some endpoint asked for it (the outbox then holds it; each endpoint gets it only if
 * it asked, src/events/deliver.ts).
 */
export function payoutEvents(batchId: string, o: BatchRowOutcome, withInn: boolean): PayrunEvent[] {
  const src = o.events;
  if (!src) return [];
  const payee = {
    method: src.payee.method.type,
    masked: maskedMethod(src.payee.method),
    ...(withInn ? { inn: src.payee.taxReference } : {}),
  };
  const data = (state: string, final: boolean): PayoutEventData => ({
    reference: o.reference,
    batchId,
    amountKopecks: o.amount,
    state,
    bank: {
      ...(o.sessionId ? { sessionId: o.sessionId } : {}),
      ...(o.payoutId ? { payoutId: o.payoutId } : {}),
    },
    ...(final && o.errorCode
      ? { failure: { code: o.errorCode, ...(o.reason ? { bankWords: o.reason } : {}) } }
      : {}),
    payee,
  });
  const last = src.changes.length - 1;
  return src.changes.flatMap(([state, at], i): PayrunEvent[] => {
    const type = i === 0 ? 'payout.created' : STATE_EVENTS[state];
    if (!type) return [];
    const sequence = i + 1;
    return [
      {
        id: eventId('payout', o.reference, src.started, sequence),
        type,
        occurredAt: at,
        sequence,
        payout: data(state, i === last),
      },
    ];
  });
}

/** A batch's events take fixed places: submitted 1, the decision 2, pauses 3…, finished last. */
export function batchEvent(
  type: Extract<EventType, `batch.${string}`>,
  batch: BatchEventData,
  occurredAt: string,
  sequence: number,
  idPart: string | number = sequence,
): PayrunEvent {
  return { id: eventId('batch', batch.batchId, type, idPart), type, occurredAt, sequence, batch };
}

/**
 * `payout.returned`, for the return workflow (issue 37's) to hand to `eventEmitter(...).returned` from
 * the activity that records the return: `sequence` is the payout's next place after its last change
 * (`status.changes.length + 1`), `started` its `status.timestamps.started`, so the id is stable.
 */
export function payoutReturnedEvent(
  p: {
    reference: string;
    batchId?: string;
    started: string;
    sequence: number;
    at: string;
    amountKopecks: number;
    bank: PayoutEventData['bank'];
    payee: { taxReference: string; method: PayoutMethod };
  },
  withInn: boolean,
): PayrunEvent {
  return {
    id: eventId('payout', p.reference, p.started, p.sequence),
    type: 'payout.returned',
    occurredAt: p.at,
    sequence: p.sequence,
    payout: {
      reference: p.reference,
      ...(p.batchId ? { batchId: p.batchId } : {}),
      amountKopecks: p.amountKopecks,
      state: 'returned',
      bank: p.bank,
      payee: {
        method: p.payee.method.type,
        masked: maskedMethod(p.payee.method),
        ...(withInn ? { inn: p.payee.taxReference } : {}),
      },
    },
  };
}
