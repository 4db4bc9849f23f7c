import { createPublicKey, KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Client } from '@temporalio/client';
import type { KeyInput } from '../bank/signing';
import { verifyWebhook } from '../bank/webhooks';
import { DEFAULT_INGRESS_LIMITS } from '../config/servers';
import { createLogger, type Logger } from '../logger';
import type { WebhookInboxInput } from '../../workflows/webhook-inbox/contract';
import { isAllowedSource, normalizeIp } from './address';
import { readBodyLimited } from '../http/body';
import { IngressMetrics, type Outcome } from './metrics';
import { RecentIds, SessionOwners } from './recent';
import { routeBankEvent } from './routing';
import { endsAtResult } from '../routing/targets';
import { buildBankEventSignal, malformedEventSignal } from './signal';

export interface IngressOptions {
  client: Client;
  /** Task queue of the payrun workers: the inbox runs there when a webhook starts it. */
  taskQueue: string;
  /** The bank's public key: PEM or an already parsed KeyObject. A PEM is parsed once, here. */
  bankPublicKeyPem: KeyInput;
  /** Source addresses allowed on the bank-facing port (every route); empty allows any. */
  allowedIps: readonly string[];
  maxBodyBytes: number;
  /** Slow-client and connection limits of the bank-facing port (and the internal one); defaults below. */
  limits?: Partial<ConnectionLimits>;
  logger?: Logger;
  /** Defaults to WEBHOOK_INBOX_WORKFLOW_ID (tests use their own). */
  inboxWorkflowId?: string;
  /** Input of the inbox when a webhook starts it. */
  inboxInput?: WebhookInboxInput;
  /** Longest time a webhook waits for Temporal before the answer is 503. Default 10 s. */
  temporalTimeoutMs?: number;
  /** Deadline of the /healthz probe. Default 2 s. */
  healthTimeoutMs?: number;
  /** Recently delivered ids remembered to skip resends; 0 turns it off. Default 1 000. */
  recentIdsCapacity?: number;
  /** Sessions whose owning workflows are remembered (spares visibility queries); 0 turns it off. Default 50 000. */
  sessionOwnersCapacity?: number;
}

/** docs/ingress.md explains each default; INGRESS_* variables set them (src/config/servers.ts). */
export interface ConnectionLimits {
  /** Request line and headers must arrive within this (server.headersTimeout). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this (server.requestTimeout). */
  requestTimeoutMs: number;
  /** Longest silence in the middle of a body before the answer is 408 (the body reader's deadline). */
  bodyIdleTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (server.keepAliveTimeout). */
  keepAliveTimeoutMs: number;
  /** Open connections per listener; beyond it new ones are closed unanswered (server.maxConnections). */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { ...DEFAULT_INGRESS_LIMITS };

export interface ListeningIngress {
  /** The bank-facing port: webhooks only. */
  url: string;
  /** The internal port: /healthz and /metrics. */
  internalUrl: string;
  /** Stops accepting on both ports, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

export interface ListenAddress {
  port?: number;
  host?: string;
}

export interface Ingress {
  /** The bank-facing server. */
  server: Server;
  /** Health and metrics, for the orchestrator and Prometheus; never exposed to the bank. */
  internalServer: Server;
  metrics: IngressMetrics;
  /** Both default to an ephemeral port on loopback; production passes INGRESS_* (src/ingress/main.ts). */
  listen(port?: number, host?: string, internal?: ListenAddress): Promise<ListeningIngress>;
}

const WEBHOOK_PATHS = new Set(['/webhooks/bank', '/']);
const STATUS: Record<Outcome, number> = {
  delivered: 200,
  inbox: 200,
  late: 200,
  returned: 200,
  duplicate: 200,
  unauthorized: 401,
  forbidden: 403,
  too_large: 413,
  timeout: 408,
  bad_request: 400,
  unavailable: 503,
};

export function createIngress(opts: IngressOptions): Ingress {
  const log = opts.logger ?? createLogger('ingress');
  const metrics = new IngressMetrics();
  const recent = new RecentIds(opts.recentIdsCapacity ?? 1_000);
  // ~200 bytes a session: 50 000 cover the confirmations of a large batch's last hours.
  const sessionOwners = new SessionOwners(opts.sessionOwnersCapacity ?? 50_000);
  const temporalTimeoutMs = opts.temporalTimeoutMs ?? 10_000;
  const inbox = { taskQueue: opts.taskQueue, workflowId: opts.inboxWorkflowId, input: opts.inboxInput };
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.limits };
  // Once: parsing the PEM per webhook took ~0.4 ms of main thread on top of a ~0.1 ms verification.
  // A bad key also fails here, at start-up, instead of turning every webhook into a 401.
  const bankPublicKey =
    opts.bankPublicKeyPem instanceof KeyObject
      ? opts.bankPublicKeyPem
      : createPublicKey(opts.bankPublicKeyPem);

  /** Both bounds: the deadline travels to the server, the abort also stops the SDK's own retries. */
  const withinTemporalTimeout = <R>(fn: () => Promise<R>, ms = temporalTimeoutMs) =>
    opts.client.withAbortSignal(AbortSignal.timeout(ms), () => opts.client.withDeadline(Date.now() + ms, fn));

  const answer = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain; version=0.0.4' : 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  };

  /** The bank-facing port: the allow-list guards every route, and only the webhook route exists. */
  async function handlePublic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const fields: Record<string, unknown> = { source: normalizeIp(req.socket.remoteAddress) };
    const finish = (
      outcome: Outcome,
      extra: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.request(outcome, seconds);
      const status = STATUS[outcome];
      const line = { ...fields, outcome, status, durationMs: Math.round(seconds * 1000) };
      if (status === 200) log.info(line, 'bank webhook');
      else if (status === 503) log.error(line, 'bank webhook not handed to Temporal');
      else log.warn(line, 'bank webhook refused');
      answer(res, status, { outcome, ...extra }, headers);
    };

    const path = pathOf(req);
    // The body is left unread on these answers: closing stops Node from reading (and discarding) it.
    if (!isAllowedSource(req.socket.remoteAddress, opts.allowedIps)) {
      Object.assign(fields, { method: req.method, path: path.slice(0, 100) });
      return finish('forbidden', {}, CLOSE);
    }
    if (!(WEBHOOK_PATHS.has(path) && req.method === 'POST'))
      return answer(res, 404, { error: 'not found' }, CLOSE);

    const read = await readBodyLimited(req, {
      maxBytes: opts.maxBodyBytes,
      idleTimeoutMs: limits.bodyIdleTimeoutMs,
    });
    if (!read.ok) {
      // Close the connection: the unread rest of the body must not be parsed as a next request.
      if (read.reason === 'too_large') return finish('too_large', {}, CLOSE);
      if (read.reason === 'timeout') return finish('timeout', {}, CLOSE);
      return; // the client went away; nobody to answer
    }
    const signature = req.headers['x-partner-sign'] as string | undefined;
    const verified = verifyWebhook(read.body, signature, bankPublicKey);
    if (!verified.ok && verified.reason === 'bad_signature') return finish('unauthorized');
    if (!verified.ok && verified.reason === 'bad_json')
      return finish('bad_request', { error: 'body is not JSON' });

    const receivedAt = new Date();
    const evt = verified.ok
      ? buildBankEventSignal(read.body, verified.event, receivedAt, signature)
      : malformedEventSignal(read.body, receivedAt);
    Object.assign(fields, { eventId: evt.id, eventType: evt.type, sessionId: evt.sessionId });
    if (!verified.ok && verified.reason === 'bad_shape') fields.shapeIssues = verified.issues;
    if (recent.has(evt.id)) return finish('duplicate');
    // Its payout ends at the payment's result and waits for no credit confirmation (its session's signed
    // metadata said so): answered as a late one, with no signal to race the payout's last workflow task.
    if (evt.type === 'confirmation_payout' && evt.sessionId && sessionOwners.endsAtResult(evt.sessionId)) {
      recent.add(evt.id);
      fields.notAwaited = true;
      return finish('late');
    }
    try {
      const known = evt.sessionId ? sessionOwners.get(evt.sessionId) : [];
      const routed = await withinTemporalTimeout(() => routeBankEvent(opts.client, inbox, evt, known));
      if (evt.sessionId && verified.ok) {
        sessionOwners.remember(evt.sessionId, routed.delivered);
        if (endsAtResult(evt.session)) sessionOwners.rememberEndsAtResult(evt.sessionId);
      }
      metrics.signalsSent('workflow', routed.delivered.length);
      metrics.visibilityLookups(routed.lookups);
      if (routed.outcome === 'inbox') metrics.signalsSent('inbox');
      recent.add(evt.id);
      Object.assign(fields, {
        targets: routed.delivered,
        skipped: routed.skipped,
        ...(routed.lateFor ? { lateFor: routed.lateFor } : {}),
      });
      return finish(routed.outcome);
    } catch (err) {
      fields.err = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      return finish('unavailable', {}, { 'retry-after': '5' });
    }
  }

  async function handleHealth(res: ServerResponse): Promise<void> {
    const started = Date.now();
    try {
      await withinTemporalTimeout(
        () => opts.client.workflowService.getSystemInfo({}),
        opts.healthTimeoutMs ?? 2_000,
      );
      answer(res, 200, { status: 'ok', temporal: { reachable: true, latencyMs: Date.now() - started } });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      answer(res, 503, {
        status: 'unavailable',
        temporal: { reachable: false, latencyMs: Date.now() - started, error },
      });
    }
  }

  // Node checks its header and request timeouts only this often; its default of 30 s would stretch
  // a 10 s headers timeout to 40 s.
  const checkingIntervalMs = Math.max(
    25,
    Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
  );
  const limitedServer = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) => {
    const created = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs,
      },
      (req, res) => {
        handler(req, res).catch((err: unknown) => {
          log.error({ err: String(err), path: pathOf(req).slice(0, 100) }, 'ingress handler failed');
          if (!res.headersSent) answer(res, 500, { error: 'internal error' });
        });
      },
    );
    created.keepAliveTimeout = limits.keepAliveTimeoutMs;
    created.maxConnections = limits.maxConnections;
    return created;
  };

  const server = limitedServer(handlePublic);
  server.on('connection', (socket: Socket) => {
    metrics.connectionOpened();
    socket.once('close', () => metrics.connectionClosed());
    // Node answers these itself (408, 400) and closes; this only counts them.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics.connectionError('timeout');
      else if (err.code?.startsWith('HPE_')) metrics.connectionError('malformed');
    });
  });
  server.on('drop', () => metrics.connectionDropped());

  const internalServer = limitedServer(async (req, res) => {
    const path = pathOf(req);
    if (path === '/healthz' && req.method === 'GET') return handleHealth(res);
    if (path === '/metrics' && req.method === 'GET') return answer(res, 200, await metrics.render());
    return answer(res, 404, { error: 'not found' });
  });

  return {
    server,
    internalServer,
    metrics,
    async listen(port = 0, host = '127.0.0.1', internal: ListenAddress = {}) {
      const publicUrl = await listenOn(server, port, host);
      let internalUrl: string;
      try {
        internalUrl = await listenOn(internalServer, internal.port ?? 0, internal.host ?? '127.0.0.1');
      } catch (err) {
        await closeServer(server);
        throw err;
      }
      return {
        url: publicUrl,
        internalUrl,
        close: async () => {
          await Promise.all([closeServer(server), closeServer(internalServer)]);
        },
      };
    },
  };
}

const CLOSE = { connection: 'close' };

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]!;
}

function listenOn(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: actual } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${shownHost}:${actual}`);
    });
  });
}

/** Stops accepting, closes idle kept-alive connections, and waits for in-flight requests. */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((done, fail) => {
    server.close((err) => (err ? fail(err) : done()));
    server.closeIdleConnections();
  });
}
