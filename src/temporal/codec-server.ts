/**
 * Temporal's remote codec protocol over HTTP, so operators see decoded payloads in the Temporal UI
 * and in `temporal workflow show --codec-endpoint … --codec-auth …`, and everyone else ciphertext:
 *
 *   POST <prefix>/decode, POST <prefix>/encode   body and answer {"payloads":[<Payload as proto JSON>]}
 *
 * Authorised by the operator token, either `Authorization: Bearer <token>` (the CLI's --codec-auth)
 * or the first path segment, `/<token>/decode` (the UI's per-browser codec endpoint setting, which
 * sends no header of ours; docs/security.md). CORS answers the configured UI origins only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Logger } from 'pino';
import { readBodyLimited } from '../http/body';

const ProtoPayload = temporal.api.common.v1.Payload;
/** A decode request carries one history page's payloads; batch histories hold chunks of rows. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The same guard against slow or idle clients as the webhook ingress (docs/ingress.md): the codec
 * server is reachable by every browser with the UI open, and Node's defaults let a client hold headers
 * for a minute, a body for five and any number of connections open.
 */
export interface CodecConnectionLimits {
  /** Request line and headers must arrive within this (server.headersTimeout). */
  headersTimeoutMs: number;
  /** The whole request must arrive within this (server.requestTimeout): a 32 MB page has a minute. */
  requestTimeoutMs: number;
  /** Longest silence in the middle of a body before the answer is 408. */
  bodyIdleTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections; beyond it new ones are closed unanswered (a few operators' browsers need few). */
  maxConnections: number;
}

export const DEFAULT_CODEC_LIMITS: CodecConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  bodyIdleTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 64,
};

export interface CodecServerOptions {
  codec: PayloadCodec;
  token: string;
  /** Browser origins (the Temporal UI) allowed to call from a page; exact match. */
  corsOrigins: string[];
  /** The namespace whose payloads this server's keys encrypt; requests naming another are refused. */
  namespace: string;
  logger?: Pick<Logger, 'info' | 'warn'>;
  limits?: Partial<CodecConnectionLimits>;
}

export interface ListeningCodecServer {
  url: string;
  close(): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function createCodecServer(opts: CodecServerOptions) {
  const expected = digest(opts.token);
  const tokenMatches = (candidate: string | undefined) =>
    candidate !== undefined && timingSafeEqual(digest(candidate), expected);

  const limits = { ...DEFAULT_CODEC_LIMITS, ...opts.limits };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks those timeouts only this often (default 30 s, which would stretch them).
      connectionsCheckingInterval: Math.max(
        25,
        Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        opts.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'codec request failed');
        if (!res.headersSent)
          reply(res, 500, { message: err instanceof Error ? err.message : 'codec error' });
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin && opts.corsOrigins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      // Preflights carry no credentials by design: answered without the token, CORS headers only.
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      res.setHeader('Access-Control-Max-Age', '600');
      res.writeHead(204).end();
      return;
    }
    const segments = pathSegments(req.url);
    if (!segments) return reply(res, 400, { message: 'malformed path (%-encoding)' }, CLOSE);
    const operation = segments.at(-1);
    if (segments.length > 2 || (operation !== 'encode' && operation !== 'decode'))
      return reply(res, 404, { message: 'POST /encode or /decode' });
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const pathToken = segments.length === 2 ? segments[0] : undefined;
    // Refusals leave the body unread and close: its rest must not be parsed as a next request.
    if (!tokenMatches(bearer) && !tokenMatches(pathToken))
      return reply(res, 401, { message: 'an operator token is required' }, CLOSE);
    if (req.method !== 'POST') return reply(res, 405, { message: 'POST only' });
    const namespace = req.headers['x-namespace'];
    if (typeof namespace === 'string' && namespace !== '' && namespace !== opts.namespace)
      return reply(res, 403, { message: `this codec server serves namespace "${opts.namespace}" only` });
    const read = await readBodyLimited(req, {
      maxBytes: MAX_BODY_BYTES,
      idleTimeoutMs: limits.bodyIdleTimeoutMs,
    });
    if (!read.ok) {
      if (read.reason === 'too_large')
        return reply(res, 413, { message: `body over ${MAX_BODY_BYTES} bytes` }, CLOSE);
      if (read.reason === 'timeout') return reply(res, 408, { message: 'the body stalled' }, CLOSE);
      return; // the client went away
    }
    const body = read.body;
    let payloads: Payload[];
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { payloads?: unknown };
      // Proto JSON leaves an empty list out: the CLI sends `{}` for a query without arguments.
      const list = parsed.payloads ?? [];
      if (!Array.isArray(list)) throw new Error('payloads is not an array');
      payloads = list.map((p) => ProtoPayload.fromObject(p as Record<string, unknown>));
    } catch (err) {
      return reply(res, 400, { message: `expected {"payloads":[…]}: ${(err as Error).message}` });
    }
    let result: Payload[];
    try {
      result = operation === 'decode' ? await opts.codec.decode(payloads) : await opts.codec.encode(payloads);
    } catch (err) {
      // An unknown key id or a forged payload: the operator should read why, the UI shows it.
      return reply(res, 422, { message: (err as Error).message });
    }
    opts.logger?.info({ operation, payloads: payloads.length, namespace }, 'codec request');
    reply(res, 200, {
      payloads: result.map((p) => ProtoPayload.toObject(ProtoPayload.create(p), JSON_FORM)),
    });
  }

  return {
    server,
    listen(port: number, host: string): Promise<ListeningCodecServer> {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const a = server.address() as AddressInfo;
          const shownHost = a.family === 'IPv6' ? `[${a.address}]` : a.address;
          resolve({
            url: `http://${shownHost}:${a.port}`,
            close: () =>
              new Promise<void>((done) => {
                server.close(() => done());
                server.closeIdleConnections();
              }),
          });
        });
      });
    },
  };
}

/** The proto's JSON mapping (bytes as base64), which the UI and the CLI send and expect. */
const JSON_FORM = { bytes: String, longs: String, enums: String, defaults: false } as const;

const CLOSE = { Connection: 'close' } as const;

function reply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers })
    .end(text);
}

/** The path's segments, %-decoded; undefined for a path that is not valid %-encoding (answered 400, not 500). */
function pathSegments(url: string | undefined): string[] | undefined {
  try {
    return new URL(url ?? '/', 'http://codec').pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}
