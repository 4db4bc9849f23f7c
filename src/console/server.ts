/**
 * The accounting console's HTTP server. Fastify 5 because its maintained plugins cover what a console with
 * money behind it must get right, instead of hand-written code: signed cookies (@fastify/cookie), CSRF
 * tokens (@fastify/csrf-protection), a strict Content-Security-Policy and the other security headers
 * (@fastify/helmet), streamed uploads with limits (@fastify/multipart) and per-address sign-in throttling
 * (@fastify/rate-limit; the per-login back-off and lock are ./sign-in-guard). @fastify/formbody parses the plain HTML forms (Fastify itself reads only JSON),
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
import { ConsoleContext, type ConsoleOptions } from './context';
import { barePage, clientErrorHandler, sendErrorPage } from './errors';
import { registerBatchRoutes } from './routes-batches';
import { registerPasskeySignInRoutes } from './routes-passkey-signin';
import { registerPasskeyRoutes } from './routes-passkeys';
import { registerReconcileRoutes } from './routes-reconcile';
import { registerRecipientRoutes } from './routes-recipients';
import { registerSignInRoutes, SESSION_COOKIE } from './routes-signin';
import { registerUploadRoutes } from './routes-upload';
import { registerWorkRoutes } from './routes-work';
import { API_PREFIX, OPENAPI_PATH, registerReadApi } from '../api/routes';
import { SessionStore } from './sessions';
import { CONSOLE_CSS, CONSOLE_JS } from './static';
import { messagePage } from './views';

export type { ConsoleOptions } from './context';

/** The largest upload accepted (a 300 000-row file is about 60 MB). */
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

const OPEN_PATHS = new Set([
  '/login',
  '/login/passkey/options',
  '/login/passkey',
  '/healthz',
  '/static/console.css',
  '/static/console.js',
  '/static/passkeys.js',
]);
/** Routes that never ask Temporal (every other one waits for its connection first). */
const WITHOUT_TEMPORAL = new Set([
  '/',
  '/login',
  '/login/passkey/options',
  '/login/passkey',
  '/logout',
  '/healthz',
  '/upload',
  '/admin/sign-in',
  '/admin/sign-in/unlock',
  OPENAPI_PATH,
]);

export async function buildConsole(opts: ConsoleOptions): Promise<FastifyInstance> {
  const ctx = new ConsoleContext(opts, new SessionStore(opts.settings.sessionMinutes * 60_000));
  const app = Fastify({
    logger: false,
    trustProxy: opts.settings.trustProxy,
    bodyLimit: 1_048_576,
    // A malformed address (FST_ERR_BAD_URL) never reaches the error handler: the same page here.
    frameworkErrors: (err, _req, reply) => sendErrorPage(ctx, err, reply, () => barePage(ctx)),
    // Headers over Node's 16 KB and broken request lines: a page, not Fastify's JSON on the socket.
    clientErrorHandler: clientErrorHandler(ctx),
  });
  const secure = opts.settings.secureCookies;
  const cookieOpts = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure };

  await app.register(cookie, { secret: randomBytes(32).toString('hex') });
  await app.register(formbody);
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
  await app.register(csrf, {
    cookieOpts: { ...cookieOpts, signed: true },
    // A form field or a header, never the query string: a URL is kept by the address bar, the history
    // and every proxy's log. The upload's multipart body is checked in its route (routes-upload.ts).
    getToken: (req) => {
      const body = req.body as { _csrf?: string } | undefined;
      return body?._csrf ?? (req.headers['x-csrf-token'] as string | undefined) ?? '';
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
    errorResponseBuilder: () => ({ statusCode: 429, message: ctx.m.login.tooMany }),
  });

  // Pages and answers hold people's payouts: no cache keeps them (the static files may be cached).
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/static/')) reply.header('cache-control', 'no-store');
  });

  // Who is asking: the session cookie, read before the body so even an error page knows them. A session
  // whose person was revoked, or whose password or TOTP secret changed since it opened, is over.
  app.addHook('onRequest', async (req) => {
    const raw = req.cookies[SESSION_COOKIE];
    const unsigned = raw ? req.unsignCookie(raw) : undefined;
    const session = unsigned?.valid ? ctx.sessions.get(unsigned.value ?? undefined) : undefined;
    if (!session) return;
    const viewer = ctx.viewer(session.person);
    if (!viewer || session.credential !== ctx.credentialOf(session.person, session.passkey)) {
      ctx.sessions.delete(session.id);
      return;
    }
    req.session = session;
    req.viewer = viewer;
  });

  // Everything but the sign-in page and static files needs someone signed in.
  app.addHook('preHandler', async (req, reply) => {
    if (req.viewer) return;
    const path = req.url.split('?')[0]!;
    // The read API asks its callers itself (a token, or this sign-in) and answers JSON: src/api/routes.ts.
    if (OPEN_PATHS.has(path) || path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return;
    if (req.method === 'GET') return reply.redirect('/login');
    return reply
      .code(401)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx.page(req, reply), ctx.m.login.heading, ctx.m.login.expired));
  });

  // A route that reads or changes batches asks Temporal's connection first: down, the page says so within
  // TEMPORAL_READY_MS instead of hanging on the SDK's retries.
  app.addHook('preHandler', async (req) => {
    const route = req.routeOptions.url;
    if (route !== undefined && !WITHOUT_TEMPORAL.has(route) && !route.startsWith('/static/'))
      await ctx.temporalReady();
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) =>
    sendErrorPage(ctx, err, reply, () => ctx.page(req, reply)),
  );
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send(messagePage(ctx.page(req, reply), ctx.m.errors.heading(404), ctx.m.notFound)),
  );

  app.get('/healthz', async () => ({ ok: true }));
  app.get('/static/console.css', (_req, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/static/console.js', (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
  app.get('/', (req, reply) => reply.redirect(req.viewer ? '/batches' : '/login'));

  registerSignInRoutes(app, ctx, cookieOpts);
  registerPasskeySignInRoutes(app, ctx, cookieOpts);
  registerUploadRoutes(app, ctx);
  registerBatchRoutes(app, ctx);
  registerRecipientRoutes(app, ctx);
  registerReconcileRoutes(app, ctx);
  registerWorkRoutes(app, ctx);
  registerPasskeyRoutes(app, ctx);
  registerReadApi(app, {
    ...ctx.opts,
    ...(opts.settings.apiTokensFile ? { tokensFile: opts.settings.apiTokensFile } : {}),
    perMinute: opts.settings.apiPerMinute,
    signedIn: (req) => req.viewer?.id,
  });
  return app;
}

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
