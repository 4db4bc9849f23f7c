/**
 * Sign-in, sign-out and the admin's sign-in locks. A sign-in passes three doors: the per-address limit
 * (@fastify/rate-limit, PAYRUN_CONSOLE_LOGIN_PER_MINUTE), the per-login back-off and lock (./sign-in-guard,
 * whatever the address), then the password and, for an approver by default, the TOTP code.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createLogger } from '../logger';
import type { ConsoleContext } from './context';
import { totpStep, verifyPassword } from './passwords';
import type { Verdict } from './sign-in-guard';
import { passkeySignIn } from './views-passkeys';
import { loginPage, messagePage, signInLocksPage, type PageContext } from './views';

export const SESSION_COOKIE = 'payrun_session';
const log = createLogger('console');
const MOSCOW_CLOCK = new Intl.DateTimeFormat('ru-RU', {
  timeZone: 'Europe/Moscow',
  hour: '2-digit',
  minute: '2-digit',
});

/** Longer than any policy id: a longer login is counted by its first characters. */
const LOGIN_CHARS = 128;

export interface CookieOptions {
  path: string;
  httpOnly: boolean;
  sameSite: 'strict';
  secure: boolean;
}

export function registerSignInRoutes(app: FastifyInstance, ctx: ConsoleContext, cookieOpts: CookieOptions) {
  const { m, opts } = ctx;

  app.get('/login', (req, reply) => {
    if (req.viewer) return reply.redirect('/batches');
    return reply.type('text/html; charset=utf-8').send(signInPage(ctx, ctx.page(req, reply)));
  });

  app.post<{ Body: { person?: string; password?: string; totp?: string } }>(
    '/login',
    {
      config: { rateLimit: { max: opts.settings.loginPerMinute, timeWindow: '1 minute' } },
      preHandler: app.csrfProtection,
    },
    async (req, reply) => {
      const person = String(req.body?.person ?? '').trim();
      const refuse = (code: number, text: string) =>
        reply
          .code(code)
          .type('text/html; charset=utf-8')
          .send(signInPage(ctx, { ...ctx.page(req, reply), flash: { kind: 'error', text } }, person));
      const now = Date.now();
      const login = person.slice(0, LOGIN_CHARS);
      const verdict = ctx.guard.attempt(login, now);
      if (!verdict.allowed) return refuse(429, guardRefusal(ctx, reply, verdict, now));
      const result = await checkLogin(
        ctx,
        person,
        String(req.body?.password ?? ''),
        String(req.body?.totp ?? ''),
      );
      if (result === 'failed') return refuse(401, m.login.failed);
      ctx.guard.succeeded(login);
      if (result === 'no-second-factor') return refuse(403, m.login.secondFactorNeeded);
      return openSession(ctx, reply, cookieOpts, person);
    },
  );

  app.post('/logout', { preHandler: app.csrfProtection }, (req, reply) => {
    if (req.session) ctx.sessions.delete(req.session.id);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  app.get('/admin/sign-in', (req, reply) => {
    ctx.require(req, 'unlock');
    const held = ctx.guard.held(Date.now());
    return reply.type('text/html; charset=utf-8').send(signInLocksPage(ctx.page(req, reply), held));
  });

  app.post<{ Body: { person?: string } }>(
    '/admin/sign-in/unlock',
    { preHandler: app.csrfProtection },
    (req, reply) => {
      const admin = ctx.require(req, 'unlock');
      const login = String(req.body?.person ?? '').slice(0, LOGIN_CHARS);
      if (!login) {
        const page = ctx.page(req, reply);
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.admin.heading, m.errors.badRequest));
      }
      const unlocked = ctx.guard.unlock(login);
      if (unlocked) log.info({ admin: admin.id, login }, 'sign-in unlocked');
      ctx.flash(req, unlocked ? 'ok' : 'error', unlocked ? m.admin.unlocked(login) : m.admin.notHeld(login));
      return reply.redirect('/admin/sign-in', 303);
    },
  );
}

/** The wait or the lock the guard holds a login to, as the person reads it (and Retry-After on the reply). */
export function guardRefusal(
  ctx: ConsoleContext,
  reply: FastifyReply,
  verdict: Extract<Verdict, { allowed: false }>,
  now: number,
): string {
  reply.header('retry-after', String(Math.ceil((verdict.retryAt - now) / 1000)));
  // Shown to the minute, rounded up ("after 14:36" is never before the lock ends), with the minutes
  // left, since a lock may pass midnight. A time only: the flash masks a long run of date digits.
  const minutes = Math.ceil((verdict.retryAt - now) / 60_000);
  const at = MOSCOW_CLOCK.format(Math.ceil(verdict.retryAt / 60_000) * 60_000);
  return verdict.locked
    ? ctx.m.login.locked(at, minutes)
    : ctx.m.login.wait(Math.ceil((verdict.retryAt - now) / 1000));
}

/**
 * The person is signed in (password and code, or a user-verified passkey): a new session id, so no id
 * set before sign-in survives it (fixation), in a signed HttpOnly SameSite=Strict cookie.
 */
export function openSession(
  ctx: ConsoleContext,
  reply: FastifyReply,
  cookieOpts: CookieOptions,
  person: string,
  passkey?: string,
) {
  const session = ctx.sessions.create(person, ctx.credentialOf(person, passkey)!, Date.now(), passkey);
  reply.setCookie(SESSION_COOKIE, session.id, {
    ...cookieOpts,
    signed: true,
    maxAge: ctx.opts.settings.sessionMinutes * 60,
  });
  return reply.redirect('/batches', 303);
}

/** The sign-in page, with passkey sign-in when the policy names the console's site (passkeys answer only it). */
export function signInPage(ctx: ConsoleContext, page: PageContext, person = ''): string {
  return loginPage(page, person, ctx.opts.policy.current().view.webauthn ? passkeySignIn(page) : '');
}

type LoginResult = 'ok' | 'failed' | 'no-second-factor';

/**
 * A person of the policy with a password (and the code, when they have TOTP; an approver must have it
 * unless PAYRUN_CONSOLE_APPROVER_SECOND_FACTOR=optional). Constant work for unknown names.
 */
async function checkLogin(
  ctx: ConsoleContext,
  person: string,
  password: string,
  code: string,
): Promise<LoginResult> {
  const viewer = person ? ctx.viewer(person) : undefined;
  const login = viewer ? ctx.opts.policy.current().logins.get(person) : undefined;
  if (!viewer || !login?.passwordHash) {
    await verifyPassword(password, DUMMY_HASH); // the same time as a real check: names cannot be probed
    return 'failed';
  }
  if (!(await verifyPassword(password, login.passwordHash))) return 'failed';
  if (!login.totp) {
    const required = ctx.opts.settings.approverSecondFactor === 'required';
    return required && viewer.roles.includes('approver') ? 'no-second-factor' : 'ok';
  }
  const step = totpStep(login.totp, code);
  // A code works once: one seen over someone's shoulder or in a proxy's log cannot sign in again.
  if (step === undefined || step <= (ctx.totpStepsUsed.get(person) ?? -1)) return 'failed';
  ctx.totpStepsUsed.set(person, step);
  return 'ok';
}

const DUMMY_HASH = `scrypt$16384$8$1$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;
