/**
 * Every error the console answers is a page in its layout and language: the route's errors and Fastify's
 * own (a body it cannot parse, one too large, a malformed address), an upload over its limit, a request
 * Node's HTTP parser refuses before Fastify sees it (headers too large: 431), and Temporal out of reach.
 * Never Fastify's English words or JSON, never a stack trace.
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { isGrpcServiceError } from '@temporalio/client';
import type { FastifyReply } from 'fastify';
import { createLogger } from '../logger';
import { Forbidden, TemporalUnavailable, type ConsoleContext } from './context';
import { messagePage, type PageContext } from './views';

const log = createLogger('console');

/** gRPC's codes (@grpc/grpc-js is the SDK's dependency, not ours). */
const DEADLINE_EXCEEDED = 4;
const UNAVAILABLE = 14;

/** Temporal's "down" and "too slow" as they reach a route, wrapped or not (the SDK wraps gRPC errors). */
export function isTemporalDown(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TemporalUnavailable) return true;
    if (isGrpcServiceError(e) && (e.code === UNAVAILABLE || e.code === DEADLINE_EXCEEDED)) return true;
  }
  return false;
}

/** `code` is a string for Fastify's errors and a number for gRPC's (a status code). */
type ConsoleError = Error & { statusCode?: number; code?: string | number };

/** The status and the words a person reads for an error thrown anywhere in a request. */
export function describeConsoleError(
  ctx: ConsoleContext,
  err: ConsoleError,
): { status: number; heading: string; message: string } {
  const { m } = ctx;
  const plain = (status: number, message: string) => ({ status, heading: m.errors.heading(status), message });
  if (typeof err.code === 'string' && err.code.startsWith('FST_CSRF')) return plain(403, m.csrf);
  if (err instanceof Forbidden) return plain(403, err.message);
  if (isTemporalDown(err))
    return { status: 503, heading: m.errors.temporalHeading, message: m.errors.temporal };
  const status = err.statusCode ?? 500;
  if (status >= 500) {
    log.error({ err: { message: err.message, stack: err.stack } }, 'console request failed');
    return plain(500, m.internalError);
  }
  // Fastify's and its plugins' words are English and technical: the catalogue's take their place.
  if (status === 429) return plain(429, m.login.tooMany);
  if (status === 404) return plain(404, m.notFound);
  if (status === 413) return plain(413, m.errors.tooLarge);
  if (status === 431) return plain(431, m.errors.headersTooLarge);
  if (status === 405 || status === 415) return plain(status, m.errors.unsupported);
  return plain(status >= 400 ? status : 400, m.errors.badRequest);
}

/** A page for a request whose cookies and session were never read (Fastify's framework errors). */
export const barePage = (ctx: ConsoleContext): PageContext => ({ lang: ctx.lang, m: ctx.m, csrf: '' });

export function sendErrorPage(
  ctx: ConsoleContext,
  err: ConsoleError,
  reply: FastifyReply,
  page: () => PageContext,
): void {
  const { status, heading, message } = describeConsoleError(ctx, err);
  if (status === 503) reply.header('retry-after', '30');
  let context: PageContext;
  try {
    context = page();
  } catch {
    context = barePage(ctx); // the error came before the cookies were read
  }
  void reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(messagePage(context, heading, message));
}

/** The headers helmet sets on every page, for the few answers written to the socket by hand. */
const RAW_HEADERS = [
  'Content-Type: text/html; charset=utf-8',
  "Content-Security-Policy: default-src 'none';style-src 'self';script-src 'self';img-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'",
  'X-Content-Type-Options: nosniff',
  'Cache-Control: no-store',
  'Connection: close',
];

/**
 * Node's parser refused the request (headers over 16 KB, a malformed request line): Fastify would write
 * JSON to the socket. The page instead, in the language the console runs in, then the connection closes.
 */
export function clientErrorHandler(ctx: ConsoleContext) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const { heading, message } = describeConsoleError(
      ctx,
      Object.assign(new Error(err.message), { statusCode: status }),
    );
    const body = Buffer.from(messagePage(barePage(ctx), heading, message), 'utf8');
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...RAW_HEADERS,
      `Content-Length: ${body.length}`,
    ];
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  };
}
