import type { KeyObject } from 'node:crypto';
import { sessionOf, verifyWebhook, type PaymentSession } from '../src/bank';
import type { SignedWebhook } from '../workflows/shared/bank-event-contract';

export interface SessionsFromWebhooks {
  /** Sessions the bank signed, about the asked session, in the order given. */
  sessions: PaymentSession[];
  /** Why each other webhook was not believed (no card numbers or names: ids and rules only). */
  refused: string[];
}

/**
 * Checks session webhooks a payout was signalled, as the ingress does, so the payout can act on the
 * bank's own signed word without asking session/status again. `bankPublicKey` absent (the worker has no
 * BANK_PUBLIC_KEY_*): nothing is believed and the payout reads session/status as before.
 */
export function createWebhookActivities(deps: { bankPublicKey?: KeyObject }) {
  return {
    async sessionsFromWebhooks(input: {
      sessionId: string;
      webhooks: SignedWebhook[];
    }): Promise<SessionsFromWebhooks> {
      const result: SessionsFromWebhooks = { sessions: [], refused: [] };
      for (const webhook of input.webhooks) {
        const why = refusal(webhook, input.sessionId, deps.bankPublicKey, result.sessions);
        if (why) result.refused.push(why);
      }
      return result;
    },
  };
}

function refusal(
  webhook: SignedWebhook,
  sessionId: string,
  key: KeyObject | undefined,
  accepted: PaymentSession[],
): string | undefined {
  if (!key) return 'this worker has no bank public key (BANK_PUBLIC_KEY_*)';
  const verified = verifyWebhook(Buffer.from(webhook.body, 'base64'), webhook.signature, key);
  if (!verified.ok) return `not the bank's webhook (${verified.reason})`;
  const session = sessionOf(verified.event);
  if (!session) return `a ${verified.event.type} webhook carries no session`;
  if (session.id !== sessionId) return `a webhook about another session ${session.id}`;
  accepted.push(session);
  return undefined;
}
