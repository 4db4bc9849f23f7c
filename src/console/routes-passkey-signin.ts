/**
 * Signing in with a passkey, no password typed. The console gives this browser a one-time random challenge
 * (kept here by a random handle in a signed HttpOnly cookie: two minutes, used once whatever the outcome);
 * the browser's authenticator answers it with any discoverable passkey of the site, its user verified. The
 * console finds the person whose policy lists that credential and checks the answer with the same pure
 * verifyPasskeyAssertion the approvals use (origin and relying party from the policy's webauthn block),
 * then claims the counter in the batch store as approvals do, so an answer or a copied authenticator
 * counts once. A user-verified passkey is two factors (the device and its PIN or biometrics): it stands
 * for the approvers' password and code. The person's attempts count in the same per-login guard.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromBase64url, verifyPasskeyAssertion } from '../../workflows/shared/webauthn';
import { batchStoreFor } from '../batch/store/open';
import { createLogger } from '../logger';
import type { ConsoleContext } from './context';
import { PASSKEY_MESSAGES } from './messages-passkeys';
import { guardRefusal, openSession, signInPage, type CookieOptions } from './routes-signin';

const CHALLENGE_COOKIE = 'payrun_passkey_signin';
/** As long as the browser's prompt may stay open. */
const CHALLENGE_MS = 2 * 60_000;
/** Challenges held at most: sign-in is open to anyone, so memory is bounded; the oldest go first. */
const MAX_PENDING = 10_000;
const log = createLogger('console');

type Body = {
  credentialId?: string;
  authenticatorData?: string;
  clientDataJSON?: string;
  signature?: string;
};

export function registerPasskeySignInRoutes(
  app: FastifyInstance,
  ctx: ConsoleContext,
  cookieOpts: CookieOptions,
): void {
  const words = PASSKEY_MESSAGES[ctx.lang].signIn;
  const pending = new Map<string, { challenge: string; expiresAt: number }>();
  const perAddress = { rateLimit: { max: ctx.opts.settings.loginPerMinute, timeWindow: '1 minute' } };

  /** The challenge this browser was given, taken out: whatever happens next, it is not answered twice. */
  const takeChallenge = (req: FastifyRequest, reply: FastifyReply, now: number) => {
    reply.clearCookie(CHALLENGE_COOKIE, { path: '/login/passkey' });
    const raw = req.cookies[CHALLENGE_COOKIE];
    const handle = raw ? req.unsignCookie(raw) : undefined;
    if (!handle?.valid || !handle.value) return undefined;
    const held = pending.get(handle.value);
    pending.delete(handle.value);
    return held && held.expiresAt > now ? held.challenge : undefined;
  };

  app.post('/login/passkey/options', { config: perAddress, preHandler: app.csrfProtection }, (req, reply) => {
    const rp = ctx.opts.policy.current().view.webauthn;
    if (!rp) return reply.code(409).send({ error: PASSKEY_MESSAGES[ctx.lang].noConsole });
    const now = Date.now();
    for (const [h, c] of pending) if (c.expiresAt <= now || pending.size >= MAX_PENDING) pending.delete(h);
    const handle = randomBytes(24).toString('base64url');
    const challenge = randomBytes(32).toString('base64url');
    pending.set(handle, { challenge, expiresAt: now + CHALLENGE_MS });
    reply.setCookie(CHALLENGE_COOKIE, handle, {
      ...cookieOpts,
      path: '/login/passkey',
      signed: true,
      maxAge: CHALLENGE_MS / 1000,
    });
    return reply.send({ challenge, rpId: rp.rpId, timeout: CHALLENGE_MS });
  });

  app.post<{ Body: Body }>(
    '/login/passkey',
    { config: perAddress, preHandler: app.csrfProtection },
    async (req, reply) => {
      const now = Date.now();
      const refuse = (code: number, text: string) =>
        reply
          .code(code)
          .type('text/html; charset=utf-8')
          .send(signInPage(ctx, { ...ctx.page(req, reply), flash: { kind: 'error', text } }));
      const challenge = takeChallenge(req, reply, now);
      const b = req.body ?? {};
      const assertion = {
        credentialId: String(b.credentialId ?? ''),
        authenticatorData: String(b.authenticatorData ?? ''),
        clientDataJSON: String(b.clientDataJSON ?? ''),
        signature: String(b.signature ?? ''),
      };
      if (!assertion.credentialId) return refuse(400, words.noScript);
      const policy = ctx.opts.policy.current().view;
      if (!challenge || !policy.webauthn) return refuse(400, words.expired);
      // The person whose keys list this credential, revoked or not: their attempts count either way.
      const owner = policy.people.find((p) => p.passkeys?.some((k) => k.id === assertion.credentialId));
      const key = owner?.passkeys?.find((k) => k.id === assertion.credentialId);
      if (!owner || !key) return refuse(401, words.refused);
      const verdict = ctx.guard.attempt(owner.id, now);
      if (!verdict.allowed) return refuse(429, guardRefusal(ctx, reply, verdict, now));
      if (!ctx.viewer(owner.id)) {
        log.warn({ person: owner.id }, 'passkey sign-in refused: revoked or no console role');
        return refuse(401, words.refused);
      }
      const store = batchStoreFor(ctx.opts.paths.dataDir);
      const last = (await store.passkeyCounters([key.id]))[key.id];
      const checked = verifyPasskeyAssertion(
        assertion,
        { id: key.id, alg: key.alg, publicKey: fromBase64url(key.publicKey)! },
        {
          challenge: fromBase64url(challenge)!,
          origin: policy.webauthn.origin,
          rpId: policy.webauthn.rpId,
          ...(last !== undefined ? { lastCounter: last } : {}),
        },
      );
      if (!checked.ok) {
        log.warn({ person: owner.id, reason: checked.reason }, 'passkey sign-in refused');
        return refuse(401, /counter/.test(checked.reason) ? words.counter : words.refused);
      }
      // Claimed like an approval's (0: an authenticator that keeps no counter; the one-time challenge holds).
      if (checked.counter !== 0 && !(await store.advancePasskeyCounter(key.id, checked.counter))) {
        log.warn({ person: owner.id }, 'passkey sign-in refused: counter already accepted');
        return refuse(401, words.counter);
      }
      ctx.guard.succeeded(owner.id);
      log.info({ person: owner.id }, 'signed in with a passkey');
      return openSession(ctx, reply, cookieOpts, owner.id, key.id);
    },
  );
}
