import type { KeyObject } from 'node:crypto';
import { signBody } from '../../src/bank/signing';
import type { SignedWebhook } from '../../workflows/shared/bank-event-contract';

/** A webhook body as a bank holding `key` would sign it, in the shape a `bankEvent` signal carries it. */
export function signedWebhook(key: string | KeyObject, body: unknown): SignedWebhook {
  const raw = Buffer.from(JSON.stringify(body));
  return { body: raw.toString('base64'), signature: signBody(raw, key) };
}
