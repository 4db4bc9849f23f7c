import type { KeyObject } from 'node:crypto';
import { sessionOf, verifyWebhook, type PaymentSession } from '../src/bank';
import type { SignedWebhook } from '../workflows/shared/bank-event-contract';
import { laterPhase, readPayoutSession, type SessionPhase } from '../workflows/shared/bank-session';

export interface SessionsFromWebhooks {
  /** Sessions the bank signed, about the asked session, in the order given. */
  sessions: PaymentSession[];
  /** Why each other webhook was not believed (no card numbers or names: ids and rules only). */
  refused: string[];
  /** With `confirmIfReady`: whether the confirm was sent, and how it ended (absent: not sent). */
  confirm?: { ok: true } | { ok: false; type?: string; message: string };
}

/** The payout's own confirm (activities/bank.ts confirmSession): one attempt, the payout's key. */
export type ConfirmOnce = (input: { sessionId: string; key: string }) => Promise<void>;

/**
 * Checks session webhooks a payout was signalled, as the ingress does, so the payout can act on the
 * bank's own signed word without asking session/status again. `bankPublicKey` absent (the worker has no
 * BANK_PUBLIC_KEY_*): nothing is believed and the payout reads session/status as before.
 */
export function createWebhookActivities(deps: { bankPublicKey?: KeyObject; confirmSession?: ConfirmOnce }) {
  return {
    /**
     * With `confirmIfReady` (a payout about to confirm as soon as its session is ready, with nothing else to
     * wait for): when every webhook checked out and they leave the session ready to confirm, the confirm is
     * sent in this same call, one local activity and one marker fewer. A failed confirm is reported, not
     * thrown: the check stands, and the payout's own confirm step retries with the same key.
     */
    async sessionsFromWebhooks(input: {
      sessionId: string;
      webhooks: SignedWebhook[];
      confirmIfReady?: { key: string; from: SessionPhase };
    }): Promise<SessionsFromWebhooks> {
      const result: SessionsFromWebhooks = { sessions: [], refused: [] };
      for (const webhook of input.webhooks) {
        const why = refusal(webhook, input.sessionId, deps.bankPublicKey, result.sessions);
        if (why) result.refused.push(why);
      }
      const ask = input.confirmIfReady;
      if (!ask || !deps.confirmSession || result.refused.length > 0 || result.sessions.length === 0)
        return result;
      const phase = result.sessions.reduce((p, s) => laterPhase(p, readPayoutSession(s).phase), ask.from);
      if (phase !== 'ready_to_confirm') return result;
      try {
        await deps.confirmSession({ sessionId: input.sessionId, key: ask.key });
        return { ...result, confirm: { ok: true } };
      } catch (err) {
        const type = (err as { type?: unknown }).type;
        return {
          ...result,
          confirm: {
            ok: false,
            ...(typeof type === 'string' ? { type } : {}),
            message: err instanceof Error ? err.message : String(err),
          },
        };
      }
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
