import type { KeyInput } from './signing';
import { verifyBody } from './signing';
import { issueToRule } from './validation';
import { fromWire } from './versioning';
import { NOMINAL_TOPUP_MARKERS, WEBHOOK_SCHEMAS, type BankWebhookEvent } from './types/webhooks';
import type { PaymentSession } from './types/session';

export type WebhookVerification =
  | { ok: true; event: BankWebhookEvent }
  | { ok: false; reason: 'bad_signature' | 'bad_json' }
  /** A known event type whose body lacks what that type must carry (e.g. no session). */
  | { ok: false; reason: 'bad_shape'; issues: { field: string; rule: string }[] };

/**
 * For the webhook ingress: checks X-PARTNER-SIGN over the raw bytes with the bank's public key
 * (test or live, from loadBankConfig), then reads the event. Never throws. Unknown event types
 * come back as `{type: 'unknown', raw}` so the ingress can acknowledge them.
 */
export function verifyWebhook(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  bankPublicKeyPem: KeyInput,
): WebhookVerification {
  if (!verifyBody(rawBody, signatureHeader?.trim(), bankPublicKeyPem))
    return { ok: false, reason: 'bad_signature' };
  let raw: unknown;
  try {
    raw = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, reason: 'bad_json' };
  }
  return parseWebhookEvent(raw);
}

/** Reads an already verified and parsed body into its typed event. */
export function parseWebhookEvent(raw: unknown): WebhookVerification {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: true, event: { type: 'unknown', raw } };
  const body = fromWire(raw) as Record<string, unknown>;
  const type = typeof body.type === 'string' ? body.type : undefined;
  const looksLikeTopup = type === undefined && NOMINAL_TOPUP_MARKERS.every((k) => k in body);
  const known = looksLikeTopup ? 'nominal_topup' : type;
  if (!known || !Object.hasOwn(WEBHOOK_SCHEMAS, known)) return { ok: true, event: { type: 'unknown', raw } };
  const result = WEBHOOK_SCHEMAS[known as keyof typeof WEBHOOK_SCHEMAS].safeParse(body);
  if (!result.success)
    return { ok: false, reason: 'bad_shape', issues: result.error.issues.map((i) => issueToRule(i, body)) };
  return { ok: true, event: result.data as BankWebhookEvent };
}

/** The session a session event carries (ready_to_confirm, payment_finished, …); undefined for the rest. */
export function sessionOf(event: BankWebhookEvent): PaymentSession | undefined {
  switch (event.type) {
    case 'confirmation_payout':
    case 'nominal_topup':
    case 'unknown':
      return undefined;
    default:
      return event.session;
  }
}

/** The session an event is about; undefined for nominal_topup and events we cannot read. */
export function sessionIdOf(event: BankWebhookEvent): string | undefined {
  switch (event.type) {
    case 'confirmation_payout':
      return event.session_id;
    case 'unknown': {
      const raw = event.raw as { session?: { id?: unknown }; session_id?: unknown } | null;
      const id = raw?.session?.id ?? raw?.session_id;
      return typeof id === 'string' ? id : undefined;
    }
    default:
      return sessionOf(event)?.id;
  }
}
