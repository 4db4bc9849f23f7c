import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { request } from 'undici';
import { signBody, verifyBody } from '../../src/bank/signing';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox';

/** Raw signed HTTP calls to the sandbox (the real bank client may be swapped in later). */
export const PROJECT = 'proj-test';

/** Parsed JSON as tests read it (deliberately loose: tests assert on shapes). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type J = any;

let cachedKeys: { privateKey: string; publicKey: string } | undefined;
export function partnerKeys(): { privateKey: string; publicKey: string } {
  cachedKeys ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return cachedKeys;
}

export interface CallResult {
  status: number;
  body: Record<string, J>;
  text: string;
}

export interface CallOptions {
  project?: string | null;
  sign?: string | null;
  idempotencyKey?: string;
  method?: 'GET' | 'POST';
  contentType?: string;
  rawBody?: string;
}

export class SignedClient {
  constructor(
    readonly baseUrl: string,
    readonly privateKey = partnerKeys().privateKey,
  ) {}

  async call(path: string, body: unknown = {}, o: CallOptions = {}): Promise<CallResult> {
    const method = o.method ?? 'POST';
    const text = o.rawBody ?? (method === 'GET' ? '' : JSON.stringify(body));
    const headers: Record<string, string> = { 'content-type': o.contentType ?? 'application/json' };
    if (o.project !== null) headers['x-partner-project'] = o.project ?? PROJECT;
    if (o.sign !== null) headers['x-partner-sign'] = o.sign ?? signBody(text, this.privateKey);
    if (o.idempotencyKey !== undefined) headers['x-partner-idempotency-key'] = o.idempotencyKey;
    const res = await request(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: method === 'GET' ? undefined : text,
    });
    const out = await res.body.text();
    let parsed: Record<string, J> = {};
    try {
      parsed = JSON.parse(out) as Record<string, J>;
    } catch {
      parsed = {};
    }
    return { status: res.statusCode, body: parsed, text: out };
  }

  v1(method: string, body: unknown = {}, o: CallOptions = {}): Promise<CallResult> {
    return this.call(`/api/v1/${method}`, body, o);
  }

  v2(method: string, body: unknown = {}, o: CallOptions = {}): Promise<CallResult> {
    return this.call(`/api/v2/${method}`, body, o);
  }

  async admin(path: string, body?: unknown): Promise<J> {
    const res = await request(`${this.baseUrl}/__admin/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
}

export interface ReceivedWebhook {
  body: Record<string, J>;
  raw: string;
  signature: string | undefined;
}

/** A local webhook receiver; answers `status()` (200 by default). */
export class WebhookReceiver {
  received: ReceivedWebhook[] = [];
  status: (w: ReceivedWebhook) => number = () => 200;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const w: ReceivedWebhook = {
          body: JSON.parse(raw),
          raw,
          signature: req.headers['x-partner-sign'] as string | undefined,
        };
        this.received.push(w);
        res.writeHead(this.status(w));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  verified(bankPublicKeyPem: string): boolean {
    return this.received.every((w) => verifyBody(w.raw, w.signature, bankPublicKeyPem));
  }

  ofType(type: string): ReceivedWebhook[] {
    return this.received.filter((w) => w.body.type === type);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export const silentLogger = pino({ level: 'silent' });

/** Starts a sandbox with the test project; the clock is driven by tests (long default timings unless given). */
/** Test sandboxes wait this long for a webhook's answer (the production default is 5 s). */
export const TEST_WEBHOOK_TIMEOUT_MS = 120_000;

export async function startTestSandbox(
  opts: Partial<SandboxOptions> = {},
): Promise<{ sb: RunningSandbox; client: SignedClient }> {
  const sb = await startSandbox({
    projects: [{ id: PROJECT, publicKeyPem: partnerKeys().publicKey }],
    logger: silentLogger,
    ...opts,
    // The tests' local receivers answer at once; only a loaded machine makes them slow, and a 5 s
    // delivery deadline would turn that into a failed delivery no test here is about.
    timings: { webhookTimeoutMs: TEST_WEBHOOK_TIMEOUT_MS, ...opts.timings },
  });
  return { sb, client: new SignedClient(sb.url) };
}

export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const card = (number: string) => ({
  type: 'card',
  card: { type: 'bank_card', bank_card: { number } },
});
export const payCard = (number: string) => ({
  type: 'card',
  card: {
    type: 'bank_card',
    bank_card: { number, expiration_month: '12', expiration_year: '30', security_code: '123' },
  },
});
export const rub = (amount: number) => ({ amount, currency: 'rub' });
