import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLogger, type Logger } from '../logger';
import { emitNominalTopup, handleAdmin, type AdminDeps } from './admin';
import type { SandboxClock } from './clock';
import { SANDBOX_PROFILES, Sandbox, type ProjectConfig, type SandboxProfile, type Timings } from './core';
import type { FaultSettings } from './faults';
import { ApiError } from './http/errors';
import { ApiPipeline, readBody, type Reply } from './http/server';
import { answerLinkRequest } from './links';
import { Engine } from './engine';
import { actionRoutes } from './routes/actions';
import { fpsRoutes } from './routes/fps';
import { npdRoutes } from './routes/npd';
import { paymentRoutes } from './routes/payments';
import { payoutRoutes } from './routes/payouts';
import { reportRoutes } from './routes/reports';
import { walletRoutes } from './routes/wallets';
import { loadState } from './state/store';
import type { LedgerEntry, Session, WebhookAttempt } from './state/types';
import { WebhookDispatcher } from './webhooks/dispatcher';

export type { FaultSettings, HttpFaultRule, WebhookFaultRule } from './faults';
export type { SandboxProfile, Timings } from './core';
export { SANDBOX_PROFILES } from './core';
export type { LedgerEntry, WebhookAttempt } from './state/types';
export * from './test-values';

export interface SandboxOptions {
  port?: number;
  host?: string;
  projects: ProjectConfig[];
  bankPrivateKeyPem?: string;
  webhookUrl?: string;
  optionalWebhooks?: boolean;
  dataDir?: string;
  admin?: boolean;
  clock?: { startAt?: string };
  /** The named timings the `timings` option then overrides; default `instant` (docs/sandbox.md). */
  profile?: SandboxProfile;
  timings?: Partial<Timings>;
  faults?: FaultSettings;
  seed?: number;
  logger?: Logger;
  /** Settlement and deposit (security) accounts; deposit balance in kopecks. */
  accounts?: {
    settlement?: string;
    deposit?: string;
    initialDepositKopecks?: number;
    initialSettlementKopecks?: number;
  };
  /** Wallet methods demand X-PARTNER-SIGN (default true; the spec's examples show only the project header). */
  requireWalletSignature?: boolean;
  /** Partner INN used in nominal_topup. */
  partnerInn?: string;
}

export interface RunningSandbox {
  url: string;
  port: number;
  bankPublicKeyPem: string;
  /** Where the bank public key was written (dataDir only). */
  bankPublicKeyPath?: string;
  clock: SandboxClock;
  /** Advance the sandbox clock and fire everything that became due. */
  advance(ms: number): Promise<void>;
  ledger(): LedgerEntry[];
  webhookAttempts(): WebhookAttempt[];
  session(id: string): Session | undefined;
  setWebhookUrl(url: string | undefined, optional?: boolean): void;
  setFaults(f: FaultSettings, seed?: number): void;
  topUpDeposit(kopecks: number): void;
  reset(): void;
  sandbox: Sandbox;
  close(): Promise<void>;
}

function resolveBankKey(opts: SandboxOptions): { pem: string; publicPath?: string } {
  if (opts.bankPrivateKeyPem) return { pem: opts.bankPrivateKeyPem };
  const gen = (): { privateKey: string; publicKey: string } =>
    generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
  if (!opts.dataDir) return { pem: gen().privateKey };
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const priv = join(opts.dataDir, 'bank-private.pem');
  const pub = join(opts.dataDir, 'bank-public.pem');
  if (!existsSync(priv)) {
    const k = gen();
    writeFileSync(priv, k.privateKey, { mode: 0o600 });
    writeFileSync(pub, k.publicKey, { mode: 0o600 });
  }
  return { pem: readFileSync(priv, 'utf8'), publicPath: pub };
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, {
    'content-type': reply.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

export async function startSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  if (!opts.projects?.length) throw new Error('startSandbox: at least one project is required');
  const logger = opts.logger ?? createLogger('sandbox');
  const key = resolveBankKey(opts);
  const loaded = opts.dataDir ? loadState(opts.dataDir) : undefined;
  const sb = new Sandbox({
    projects: opts.projects,
    bankPrivateKeyPem: key.pem,
    timings: { ...SANDBOX_PROFILES[opts.profile ?? 'instant'], ...opts.timings },
    accounts: {
      settlementAccount: opts.accounts?.settlement ?? '40702810400000000001',
      depositAccount: opts.accounts?.deposit ?? '40702810700000000002',
      initialDepositKopecks: opts.accounts?.initialDepositKopecks ?? 10_000_000_000,
      initialSettlementKopecks: opts.accounts?.initialSettlementKopecks ?? 0,
    },
    webhookUrl: opts.webhookUrl,
    optionalWebhooks: opts.optionalWebhooks ?? false,
    admin: opts.admin ?? true,
    requireWalletSignature: opts.requireWalletSignature ?? true,
    faults: opts.faults ?? {},
    seed: opts.seed ?? 1,
    dataDir: opts.dataDir,
    logger,
    loadedState: loaded,
  });
  if (!loaded && opts.clock?.startAt) {
    const at = Date.parse(opts.clock.startAt);
    if (Number.isNaN(at)) throw new Error(`clock.startAt: not an ISO 8601 instant: ${opts.clock.startAt}`);
    sb.state.clockOffsetMs = at - Date.now();
  }
  const webhooks = new WebhookDispatcher(sb);
  const engine = new Engine(sb, webhooks);
  const api = new ApiPipeline(sb, engine, webhooks, [
    ...payoutRoutes,
    ...paymentRoutes,
    ...actionRoutes,
    ...npdRoutes,
    ...fpsRoutes,
    ...reportRoutes,
    ...walletRoutes,
  ]);
  const admin: AdminDeps = { sb, engine, webhooks, partnerInn: opts.partnerInn ?? '7707083893' };

  let closed = false;
  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    sb.state.requestCounts[`${req.method} ${path}`] =
      (sb.state.requestCounts[`${req.method} ${path}`] ?? 0) + 1;
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch {
      if (!res.headersSent)
        send(res, {
          status: 413,
          body: JSON.stringify({
            status: 'error',
            error: { code: 'invalid_request', description: 'body too large' },
          }),
        });
      return;
    }
    if (path.startsWith('/__admin/')) {
      if (!sb.cfg.admin)
        return send(res, {
          status: 404,
          body: JSON.stringify({
            status: 'error',
            error: { code: 'method_not_found', description: 'admin endpoints are off' },
          }),
        });
      return send(res, await handleAdmin(admin, req, path, url.searchParams, raw));
    }
    const action = /^\/__sandbox\/(3ds|qr)\/([^/]+)$/.exec(path);
    if (action) {
      const done = engine.completeAction(action[2]!, url.searchParams.get('result') !== 'fail');
      return send(res, {
        status: done ? 200 : 409,
        body: done ? 'action completed' : 'nothing to complete',
        contentType: 'text/plain',
      });
    }
    // The link the person opens (the bank's app, played here): they link the partner, or `?result=declined`.
    const link = /^\/__sandbox\/onboarding\/([^/]+)$/.exec(path);
    if (link) {
      try {
        answerLinkRequest(sb, decodeURIComponent(link[1]!), url.searchParams.get('result') !== 'declined');
        return send(res, { status: 200, body: 'linked', contentType: 'text/plain' });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        return send(res, { status: e.httpStatus, body: e.description, contentType: 'text/plain' });
      }
    }
    const latencyMs = sb.timings.apiLatencyMs;
    if (latencyMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      // A sandbox closed meanwhile must not change its state any more; the socket is gone anyway.
      if (closed) return;
    }
    const reply = await api.handle(req, res, path, raw);
    if (reply) send(res, reply);
  };

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      logger.error({ err }, 'sandbox request failed');
      if (!res.headersSent)
        send(res, {
          status: 500,
          body: JSON.stringify({
            status: 'error',
            error: { code: 'internal_error', description: 'internal error' },
          }),
        });
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  sb.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  sb.clock.arm();
  sb.persister?.flush();
  logger.info({ url: sb.baseUrl, dataDir: opts.dataDir }, 'bank sandbox listening');

  return {
    url: sb.baseUrl,
    port,
    bankPublicKeyPem: sb.bankPublicKeyPem,
    bankPublicKeyPath: key.publicPath,
    clock: sb.clock,
    advance: async (ms) => {
      await sb.clock.advance({ ms });
    },
    ledger: () => sb.state.ledger,
    webhookAttempts: () => sb.state.webhookLog,
    session: (id) => sb.state.sessions[id],
    setWebhookUrl: (url, optional) => {
      sb.state.webhookUrl = url;
      if (optional !== undefined) sb.state.optionalWebhooks = optional;
    },
    setFaults: (f, seed) => sb.faults.set(f, seed),
    topUpDeposit: (kopecks) => void emitNominalTopup(admin, kopecks),
    reset: () => sb.reset(),
    sandbox: sb,
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sb.clock.close();
      await webhooks.close();
      sb.persister?.flush();
    },
  };
}
