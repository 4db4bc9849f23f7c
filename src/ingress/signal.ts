import { createHash } from 'node:crypto';
import { sessionIdOf } from '../bank/webhooks';
import type { BankWebhookEvent } from '../bank/types/webhooks';
import {
  MAX_SIGNATURE_BYTES,
  MAX_SIGNED_WEBHOOK_BYTES,
  type BankEventSignal,
  type SignedWebhook,
} from '../../workflows/shared/bank-event-contract';

/** The event id: the SHA-256 of the exact bytes, so a resent webhook has the same id everywhere. */
export function eventIdOf(rawBody: Buffer): string {
  return createHash('sha256').update(rawBody).digest('hex');
}

/**
 * Turns a verified webhook into the signal payrun's workflows receive. A session event also carries
 * the body and signature as the bank sent them (`signed`): the payout checks them itself instead of
 * reading session/status, since it cannot tell this signal from one sent with the Temporal CLI.
 */
export function buildBankEventSignal(
  rawBody: Buffer,
  event: BankWebhookEvent,
  receivedAt: Date,
  signature?: string,
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
    default: {
      const signed = signedWebhook(rawBody, signature);
      return {
        ...base,
        type: event.type,
        sessionId: event.session.id,
        session: event.session,
        ...(signed ? { signed } : {}),
      };
    }
  }
}

function signedWebhook(rawBody: Buffer, signature: string | undefined): SignedWebhook | undefined {
  if (!signature || rawBody.length > MAX_SIGNED_WEBHOOK_BYTES) return undefined;
  // The bytes verifyWebhook checked, re-encoded: Node's decoder forgives whitespace and surplus '='
  // padding that the workflow's Base64 rule refuses, and a refused `signed` drops the whole event.
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_SIGNATURE_BYTES) return undefined;
  return { body: rawBody.toString('base64'), signature: bytes.toString('base64') };
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
