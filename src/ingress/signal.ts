import { createHash } from 'node:crypto';
import { sessionIdOf } from '../bank/webhooks';
import type { BankWebhookEvent } from '../bank/types/webhooks';
import type { BankEventSignal } from '../../workflows/contracts/bank-event';

/** The event id: the SHA-256 of the exact bytes, so a resent webhook has the same id everywhere. */
export function eventIdOf(rawBody: Buffer): string {
  return createHash('sha256').update(rawBody).digest('hex');
}

/** Turns a verified webhook into the signal payrun's workflows receive. */
export function buildBankEventSignal(
  rawBody: Buffer,
  event: BankWebhookEvent,
  receivedAt: Date,
): BankEventSignal {
  const base = { id: eventIdOf(rawBody), receivedAt: receivedAt.toISOString() };
  switch (event.type) {
    case 'confirmation_payout':
      return {
        ...base,
        type: event.type,
        sessionId: event.session_id,
        confirmation: {
          event: event.event,
          eventDate: event.event_date,
          ...(event.transaction_id !== undefined ? { transactionId: event.transaction_id } : {}),
        },
      };
    case 'nominal_topup':
      return { ...base, type: event.type, body: event };
    case 'unknown': {
      const sessionId = sessionIdOf(event);
      return { ...base, type: 'unknown', ...(sessionId ? { sessionId } : {}), body: event.raw };
    }
    default:
      return { ...base, type: event.type, sessionId: event.session.id, session: event.session };
  }
}

/**
 * A signed body of a known type that lacks what the type must carry: kept as `unknown` (with the
 * body) so an operator sees it in the inbox instead of the bank retrying it into oblivion.
 */
export function malformedEventSignal(rawBody: Buffer, receivedAt: Date): BankEventSignal {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    body = rawBody.toString('utf8');
  }
  return buildBankEventSignal(rawBody, { type: 'unknown', raw: body }, receivedAt);
}

export { isRoutable } from '../routing/workflows';
