import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BankClient, type BankClientOptions } from '../../../src/bank';
import { createLogger } from '../../../src/logger';

/** A stand-in bank on a free local port: records every request and checks its signature. */

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  json: unknown;
  /** crypto.verify of X-PARTNER-SIGN over the exact bytes received, with the partner public key. */
  signatureValid: boolean;
}

export type Reply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; raw: string; headers?: Record<string, string> }
  | { destroy: true }
  | { hang: true };

export interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
  publicPem: string;
  privatePem: string;
}

export function makeKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKey,
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Satisfies every response schema of the client, so path/body tests need no per-method answer. */
export const UNIVERSAL_OK = {
  status: 'ok',
  session: { id: 'ps_1', status: 'created' },
  request_id: 'rq_1',
  info: { type: 'recurrent_token' },
  recurrent: { token: 't', is_active: false },
  banks: [{ id: '100000000111', eng_name: 'Bank', ru_name: 'Банк' }],
  account_number: '40702810000000000001',
  balance: { current_balance: 100 },
  method: { name: 'account_statement', account_statement: { transactions: [] } },
  wallets: [],
  data: { request_id: 'wr_1', description: 'queued', wallet_id: 'w_1', balance: 0, currency: 'rub' },
};

export interface BankServer {
  url: string;
  received: Received[];
  /** Sets how the next requests are answered (default: UNIVERSAL_OK). */
  reply(fn: (req: Received, index: number) => Reply): void;
  /**
   * Resolves once `count` requests have been received in all (counting those already in
   * `received`), just before the reply is chosen: the event a test waits for instead of a timer.
   */
  receivedCount(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startBankServer(partnerPublicKey: KeyObject): Promise<BankServer> {
  const received: Received[] = [];
  let responder: (req: Received, index: number) => Reply = () => ({ json: UNIVERSAL_OK });
  const sockets = new Set<Socket>();
  let waiters: { count: number; resolve: () => void }[] = [];

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sign = req.headers['x-partner-sign'];
      const signatureValid =
        typeof sign === 'string' && verify('sha256', body, partnerPublicKey, Buffer.from(sign, 'base64'));
      let json: unknown;
      try {
        json = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        json = Symbol.for('not json');
      }
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        json,
        signatureValid,
      };
      received.push(r);
      const due = waiters.filter((w) => received.length >= w.count);
      waiters = waiters.filter((w) => received.length < w.count);
      for (const w of due) w.resolve();
      const reply = responder(r, received.length - 1);
      if ('destroy' in reply) return req.socket.destroy();
      if ('hang' in reply) return;
      const text = 'json' in reply ? JSON.stringify(reply.json) : reply.raw;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    reply: (fn) => {
      responder = fn;
    },
    receivedCount: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client against the stand-in bank, quiet unless a test passes its own logger. */
export function clientFor(
  server: BankServer,
  keys: KeyPair,
  overrides: Partial<BankClientOptions> = {},
): BankClient {
  return new BankClient({
    baseUrl: server.url,
    project: 'proj-1',
    privateKeyPem: keys.privatePem,
    apiVersion: 1,
    retryBaseDelayMs: 1,
    logger: createLogger('bank-test', { write: () => true }),
    ...overrides,
  });
}
