/**
 * The accounting console's HTTP server. Fastify 5 because its maintained plugins cover what a console with
 * money behind it must get right, instead of hand-written code: signed cookies (@fastify/cookie), CSRF
 * tokens (@fastify/csrf-protection), a strict Content-Security-Policy and the other security headers
 * (@fastify/helmet), streamed uploads with limits (@fastify/multipart) and sign-in throttling
 * (@fastify/rate-limit). @fastify/formbody parses the plain HTML forms (Fastify itself reads only JSON),
 * so every page works without a script.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import { createLogger } from '../logger';
import { ConsoleContext, Forbidden, type ConsoleOptions } from './context';
import { totpStep, verifyPassword } from './passwords';
import { registerBatchRoutes } from './routes-batches';
import { registerPasskeyRoutes } from './routes-passkeys';
import { registerRecipientRoutes } from './routes-recipients';
import { registerUploadRoutes } from './routes-upload';
import { SessionStore } from './sessions';
import { CONSOLE_CSS, CONSOLE_JS } from './static';
import { loginPage, messagePage } from './views';

export type { ConsoleOptions } from './context';

const SESSION_COOKIE = 'payrun_session';
/** The largest upload accepted (a 300 000-row file is about 60 MB). */
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const log = createLogger('console');

const OPEN_PATHS = new Set(['/login', '/healthz', '/static/console.css', '/static/console.js']);

export async function buildConsole(opts: ConsoleOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, trustProxy: opts.settings.trustProxy, bodyLimit: 1_048_576 });
  const ctx = new ConsoleContext(opts, new SessionStore(opts.settings.sessionMinutes * 60_000));
  const { m } = ctx;
  const secure = opts.settings.secureCookies;
  const cookieOpts = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure };

  await app.register(cookie, { secret: randomBytes(32).toString('hex') });
  await app.register(formbody);
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
  await app.register(csrf, {
    cookieOpts: { ...cookieOpts, signed: true },
    // The upload's token rides in its form's action URL: a multipart body is read only after the check.
    getToken: (req) => {
      const body = req.body as { _csrf?: string } | undefined;
      const query = req.query as { _csrf?: string } | undefined;
      return body?._csrf ?? query?._csrf ?? (req.headers['x-csrf-token'] as string | undefined) ?? '';
    },
  });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    // http://localhost in tests and behind a TLS-terminating proxy in production; the proxy sets HSTS.
    strictTransportSecurity: false,
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => ({ statusCode: 429, message: m.login.tooMany }),
  });

  // Pages and answers hold people's payouts: no cache keeps them (the static files may be cached).
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/static/')) reply.header('cache-control', 'no-store');
  });

  // Who is asking: the session cookie, checked on every request but the sign-in page and static files.
  app.addHook('preHandler', async (req, reply) => {
    const raw = req.cookies[SESSION_COOKIE];
    const unsigned = raw ? req.unsignCookie(raw) : undefined;
    const session = unsigned?.valid ? ctx.sessions.get(unsigned.value ?? undefined) : undefined;
    const viewer = session ? ctx.viewer(session.person) : undefined;
    if (session && viewer) {
      req.session = session;
      req.viewer = viewer;
      return;
    }
    const path = req.url.split('?')[0]!;
    if (OPEN_PATHS.has(path)) return;
    if (req.method === 'GET') return reply.redirect('/login');
    return reply
      .code(401)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx.page(req, reply), m.login.heading, m.login.expired));
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    let status = err.statusCode ?? 500;
    let message = err.message;
    if (err.code?.startsWith('FST_CSRF')) {
      status = 403;
      message = m.csrf;
    } else if (err instanceof Forbidden) status = 403;
    else if (status >= 500) {
      log.error({ err: { message: err.message, stack: err.stack } }, 'console request failed');
      message = m.internalError;
    }
    void reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx.page(req, reply), String(status), message));
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx.page(req, reply), '404', m.notFound)),
  );

  app.get('/healthz', async () => ({ ok: true }));
  app.get('/static/console.css', (_req, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/static/console.js', (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
  app.get('/', (req, reply) => reply.redirect(req.viewer ? '/batches' : '/login'));

  app.get('/login', (req, reply) => {
    if (req.viewer) return reply.redirect('/batches');
    return reply.type('text/html; charset=utf-8').send(loginPage(ctx.page(req, reply)));
  });
  app.post<{ Body: { person?: string; password?: string; totp?: string } }>(
    '/login',
    {
      config: { rateLimit: { max: opts.settings.loginPerMinute, timeWindow: '1 minute' } },
      preHandler: app.csrfProtection,
    },
    async (req, reply) => {
      const person = String(req.body?.person ?? '').trim();
      const ok = await checkLogin(
        ctx,
        person,
        String(req.body?.password ?? ''),
        String(req.body?.totp ?? ''),
      );
      if (!ok) {
        const page = ctx.page(req, reply);
        return reply
          .code(401)
          .type('text/html; charset=utf-8')
          .send(loginPage({ ...page, flash: { kind: 'error', text: m.login.failed } }, person));
      }
      const session = ctx.sessions.create(person);
      reply.setCookie(SESSION_COOKIE, session.id, {
        ...cookieOpts,
        signed: true,
        maxAge: opts.settings.sessionMinutes * 60,
      });
      return reply.redirect('/batches', 303);
    },
  );
  app.post('/logout', { preHandler: app.csrfProtection }, (req, reply) => {
    if (req.session) ctx.sessions.delete(req.session.id);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  registerUploadRoutes(app, ctx);
  registerBatchRoutes(app, ctx);
  registerRecipientRoutes(app, ctx);
  registerPasskeyRoutes(app, ctx);
  return app;
}

/** A person of the policy with a password (and the code, when they have TOTP). Constant work for unknown names. */
async function checkLogin(
  ctx: ConsoleContext,
  person: string,
  password: string,
  code: string,
): Promise<boolean> {
  const viewer = person ? ctx.viewer(person) : undefined;
  const login = viewer ? ctx.opts.policy.current().logins.get(person) : undefined;
  if (!login?.passwordHash) {
    await verifyPassword(password, DUMMY_HASH); // the same time as a real check: names cannot be probed
    return false;
  }
  if (!(await verifyPassword(password, login.passwordHash))) return false;
  if (!login.totp) return true;
  const step = totpStep(login.totp, code);
  // A code works once: one seen over someone's shoulder or in a proxy's log cannot sign in again.
  if (step === undefined || step <= (ctx.totpStepsUsed.get(person) ?? -1)) return false;
  ctx.totpStepsUsed.set(person, step);
  return true;
}

const DUMMY_HASH = `scrypt$16384$8$1$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

export interface RunningConsole {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Builds and listens (the demo, the tests, `payrun console`). */
export async function startConsole(opts: ConsoleOptions): Promise<RunningConsole> {
  const app = await buildConsole(opts);
  await app.listen({ host: opts.settings.host, port: opts.settings.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.settings.port;
  const host = opts.settings.host === '0.0.0.0' ? '127.0.0.1' : opts.settings.host;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, app, close: () => app.close() };
}
