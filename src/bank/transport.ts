import { KeyObject, createPrivateKey } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { z } from 'zod';
import { DEFAULT_BANK_CONNECT_TIMEOUT_MS, DEFAULT_BANK_REQUEST_TIMEOUT_MS } from '../config/bank';
import { createLogger, type Logger } from '../logger';
import {
  BankAbortError,
  BankApiError,
  BankError,
  BankTransportError,
  isRetryable,
  type TransportErrorKind,
} from './errors';
import { pathFor, versionFor, type ApiVersion, type Endpoint } from './paths';
import { signBody, type KeyInput } from './signing';
import { checkIdempotencyKey, parseParams, parseResponse } from './validation';
import { fromWire, toWire } from './versioning';

export interface BankClientOptions {
  /** Test or live address, as chosen by loadBankConfig (BANK_ENV). */
  baseUrl: string;
  project: string;
  submerchant?: string;
  privateKeyPem: KeyInput;
  apiVersion: ApiVersion;
  connectTimeoutMs?: number;
  /** Deadline of one attempt, from sending to the last byte of the answer. */
  requestTimeoutMs?: number;
  /** Extra attempts for reads and idempotency-keyed calls; never for un-keyed writes. */
  maxRetries?: number;
  /** First backoff step; doubles per retry, with jitter, up to 20× this. */
  retryBaseDelayMs?: number;
  logger?: Logger;
}

export interface RequestOptions {
  /** X-PARTNER-IDEMPOTENCY-KEY, 4 to 64 characters; lets the client retry a write. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * Extra attempts for this call, instead of the client's `maxRetries`. Activities pass 0: Temporal's
   * retry policy is the one owner of their retries.
   */
  maxRetries?: number;
}

export interface CallSpec<S extends z.ZodType> {
  endpoint: Endpoint;
  /** Schema the caller's params must satisfy; absent for calls without a body. */
  params?: { schema: z.ZodType; value: unknown };
  response: S;
}

interface Answer {
  httpStatus: number;
  json: unknown;
}

/** The one place that builds, signs, sends, retries and reads requests to the bank. */
export class Transport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly key: KeyObject;
  private readonly logger: Logger;
  private readonly requestTimeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;

  constructor(private readonly options: BankClientOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connect: { timeout: options.connectTimeoutMs ?? DEFAULT_BANK_CONNECT_TIMEOUT_MS },
      keepAliveTimeout: 30_000,
    });
    const key = options.privateKeyPem;
    // Parsed once: every request is signed with it.
    this.key = key instanceof KeyObject ? key : createPrivateKey(key);
    this.logger = options.logger ?? createLogger('bank');
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_BANK_REQUEST_TIMEOUT_MS;
    this.maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 250;
  }

  async call<S extends z.ZodType>(spec: CallSpec<S>, opts: RequestOptions = {}): Promise<z.output<S>> {
    // Everything that can be wrong with the request is found here, before a byte is sent.
    checkIdempotencyKey(opts.idempotencyKey);
    const params = spec.params ? parseParams(spec.params.schema, spec.params.value) : undefined;
    if (opts.signal?.aborted) throw new BankAbortError({ cause: opts.signal.reason });

    const version = versionFor(spec.endpoint, this.options.apiVersion);
    const path = this.basePath + pathFor(spec.endpoint, version);
    const body =
      spec.endpoint.method === 'GET'
        ? Buffer.alloc(0)
        : Buffer.from(JSON.stringify(toWire(params ?? {}, version)));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-partner-project': this.options.project,
      // The exact bytes sent are the bytes signed; GET signs the empty body.
      'x-partner-sign': signBody(body, this.key),
    };
    if (this.options.submerchant) headers['x-partner-submerchant'] = this.options.submerchant;
    if (opts.idempotencyKey) headers['x-partner-idempotency-key'] = opts.idempotencyKey;

    const mayRetry = spec.endpoint.safety === 'read' || opts.idempotencyKey !== undefined;
    const attempts = 1 + (mayRetry ? (opts.maxRetries ?? this.maxRetries) : 0);
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const log = { method: spec.endpoint.method, path, idempotencyKey: opts.idempotencyKey, attempt };
      try {
        const answer = await this.send(spec.endpoint.method, path, headers, body, opts.signal);
        this.logger.debug(
          {
            bank: {
              ...log,
              httpStatus: answer.httpStatus,
              durationMs: Math.round(performance.now() - started),
            },
          },
          'bank call',
        );
        return parseResponse(spec.response, fromWire(answer.json), path, answer.httpStatus);
      } catch (err) {
        const durationMs = Math.round(performance.now() - started);
        const bankCode = err instanceof BankError ? err.code : 'unknown';
        const httpStatus = err instanceof BankError ? (err as { httpStatus?: number }).httpStatus : undefined;
        this.logger.debug({ bank: { ...log, httpStatus, bankCode, durationMs } }, 'bank call failed');
        if (attempt >= attempts || !isRetryable(err) || opts.signal?.aborted) throw err;
        await this.backoff(attempt, opts.signal);
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const ceiling = Math.min(this.retryBaseDelayMs * 2 ** (attempt - 1), this.retryBaseDelayMs * 20);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    try {
      await sleep(delay, undefined, { signal });
    } catch (err) {
      throw new BankAbortError({ cause: err });
    }
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: Buffer,
    callerSignal: AbortSignal | undefined,
  ): Promise<Answer> {
    const deadline = AbortSignal.timeout(this.requestTimeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
    let httpStatus: number;
    let text: string;
    try {
      const res = await this.pool.request({
        method,
        path,
        headers,
        body: method === 'GET' ? undefined : body,
        signal,
        headersTimeout: this.requestTimeoutMs,
        bodyTimeout: this.requestTimeoutMs,
      });
      httpStatus = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (callerSignal?.aborted) throw new BankAbortError({ cause: err });
      if (deadline.aborted) {
        throw new BankTransportError(
          'timeout',
          `no answer within ${this.requestTimeoutMs} ms`,
          true,
          undefined,
          {
            cause: err,
          },
        );
      }
      throw transportError(err);
    }
    return interpret(httpStatus, text);
  }
}

/**
 * The envelope is read first: `status: "error"` is a BankApiError whatever the HTTP status
 * (the spec does not show the statuses). Only a body that is not an envelope falls back on HTTP.
 */
function interpret(httpStatus: number, text: string): Answer {
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(text);
    isJson = true;
  } catch {
    // handled below
  }
  if (isJson && json && typeof json === 'object' && (json as { status?: unknown }).status === 'error') {
    const error = (json as { error?: unknown }).error;
    const e = error && typeof error === 'object' ? (error as Record<string, unknown>) : {};
    const code = typeof e.code === 'string' ? e.code : typeof error === 'string' ? error : 'unknown_error';
    const description = typeof e.description === 'string' ? e.description : '';
    throw new BankApiError(code, description, httpStatus);
  }
  if (httpStatus < 200 || httpStatus >= 300) {
    const unknown = httpStatus >= 500;
    throw new BankTransportError('http_status', `bank answered HTTP ${httpStatus}`, unknown, httpStatus);
  }
  if (!isJson) {
    throw new BankTransportError(
      'non_json',
      `bank answered HTTP ${httpStatus} with a non-JSON body`,
      true,
      httpStatus,
    );
  }
  return { httpStatus, json };
}

const KIND_BY_CODE: Record<string, TransportErrorKind> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'connection_reset',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNREFUSED: 'connect',
  EHOSTUNREACH: 'connect',
  ENETUNREACH: 'connect',
};

/** Failures before the request could reach the bank: safe to repeat even for writes. */
const NOT_SENT: ReadonlySet<TransportErrorKind> = new Set(['connect_timeout', 'dns', 'connect']);

function transportError(err: unknown): BankTransportError {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code ?? '';
  const kind = KIND_BY_CODE[code] ?? 'socket';
  const message = err instanceof Error ? err.message : String(err);
  return new BankTransportError(kind, `${kind}: ${message}`, !NOT_SENT.has(kind), undefined, { cause: err });
}
