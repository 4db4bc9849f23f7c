import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { KeyInput } from '../bank/signing';
import { verifyWebhook } from '../bank/webhooks';
import { createLogger, type Logger } from '../logger';
import type { WebhookInboxInput } from '../../workflows/definitions';
import { isAllowedSource, normalizeIp } from './address';
import { readBodyLimited } from './body';
import { IngressMetrics, type Outcome } from './metrics';
import { RecentIds } from './recent';
import { routeBankEvent } from './routing';
import { buildBankEventSignal, malformedEventSignal } from './signal';

export interface IngressOptions {
  client: Client;
  /** Task queue of the payrun workers: the inbox runs there when a webhook starts it. */
  taskQueue: string;
  bankPublicKeyPem: KeyInput;
  /** Source addresses allowed to post webhooks; empty allows any. */
  allowedIps: readonly string[];
  maxBodyBytes: number;
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
}

export interface ListeningIngress {
  url: string;
  /** Stops accepting, lets in-flight webhooks finish, then resolves. */
  close(): Promise<void>;
}

export interface Ingress {
  server: Server;
  metrics: IngressMetrics;
  listen(port?: number, host?: string): Promise<ListeningIngress>;
}

const WEBHOOK_PATHS = new Set(['/webhooks/bank', '/']);
const STATUS: Record<Outcome, number> = {
  delivered: 200,
  inbox: 200,
  duplicate: 200,
  unauthorized: 401,
  forbidden: 403,
  too_large: 413,
  bad_request: 400,
  unavailable: 503,
};

export function createIngress(opts: IngressOptions): Ingress {
  const log = opts.logger ?? createLogger('ingress');
  const metrics = new IngressMetrics();
  const recent = new RecentIds(opts.recentIdsCapacity ?? 1_000);
  const temporalTimeoutMs = opts.temporalTimeoutMs ?? 10_000;
  const inbox = { taskQueue: opts.taskQueue, workflowId: opts.inboxWorkflowId, input: opts.inboxInput };

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

  async function handleWebhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
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

    if (!isAllowedSource(req.socket.remoteAddress, opts.allowedIps)) return finish('forbidden');
    const read = await readBodyLimited(req, opts.maxBodyBytes);
    if (!read.ok) {
      // Close the connection: the unread rest of the body must not be parsed as a next request.
      if (read.reason === 'too_large') return finish('too_large', {}, { connection: 'close' });
      return; // the client went away; nobody to answer
    }
    const verified = verifyWebhook(
      read.body,
      req.headers['x-partner-sign'] as string | undefined,
      opts.bankPublicKeyPem,
    );
    if (!verified.ok && verified.reason === 'bad_signature') return finish('unauthorized');
    if (!verified.ok && verified.reason === 'bad_json')
      return finish('bad_request', { error: 'body is not JSON' });

    const receivedAt = new Date();
    const evt = verified.ok
      ? buildBankEventSignal(read.body, verified.event, receivedAt)
      : malformedEventSignal(read.body, receivedAt);
    Object.assign(fields, { eventId: evt.id, eventType: evt.type, sessionId: evt.sessionId });
    if (!verified.ok && verified.reason === 'bad_shape') fields.shapeIssues = verified.issues;
    if (recent.has(evt.id)) return finish('duplicate');
    try {
      const routed = await withinTemporalTimeout(() => routeBankEvent(opts.client, inbox, evt));
      metrics.signalsSent('workflow', routed.delivered.length);
      if (routed.outcome === 'inbox') metrics.signalsSent('inbox');
      recent.add(evt.id);
      Object.assign(fields, { targets: routed.delivered, skipped: routed.skipped });
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

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route =
      WEBHOOK_PATHS.has(path) && req.method === 'POST'
        ? handleWebhook(req, res)
        : path === '/healthz' && req.method === 'GET'
          ? handleHealth(res)
          : path === '/metrics' && req.method === 'GET'
            ? Promise.resolve(answer(res, 200, metrics.render()))
            : Promise.resolve(answer(res, 404, { error: 'not found' }));
    route.catch((err: unknown) => {
      log.error({ err: String(err), path }, 'ingress handler failed');
      if (!res.headersSent) answer(res, 500, { error: 'internal error' });
    });
  });

  return {
    server,
    metrics,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const { port: actual } = server.address() as AddressInfo;
          const shownHost = host.includes(':') ? `[${host}]` : host;
          resolve({
            url: `http://${shownHost}:${actual}`,
            close: () =>
              new Promise<void>((done, fail) => {
                server.close((err) => (err ? fail(err) : done()));
                server.closeIdleConnections();
              }),
          });
        });
      });
    },
  };
}
