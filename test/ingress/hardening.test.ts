// The module object itself (not a namespace copy), so a spy on it sees the ingress's calls.
import nodeCrypto, { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { signBody } from '../../src/bank/signing';
import { createIngress, type IngressOptions, type ListeningIngress } from '../../src/ingress/server';
import { createLogger } from '../../src/logger';

/**
 * The bank-facing port under slow, crowding and unlisted clients, over real sockets. Nothing here
 * reaches Temporal: the client is a real, lazily connecting one aimed at a closed port, so the
 * one test that passes the signature check sees the ingress's own 503.
 */

const bankKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankPublicPem = bankKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const strangerKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
// Port 1 (tcpmux) is closed on any machine that runs these tests: every Temporal call fails fast.
// No gRPC retry interceptor: a retry timer left pending after afterAll closes the connection would fire
// into whichever suite runs next in this jest worker ("Channel has been shut down").
const connection = Connection.lazy({ address: '127.0.0.1:1', interceptors: [] });
const client = new Client({ connection });
const MAX_BODY = 16 * 1024;
/**
 * Each test shortens only the limit it is about; the others stay far beyond jest's 120 s, so a
 * limit that stopped working fails its test instead of being rescued by another limit or a default.
 */
const LONG = 600_000;

const running: ListeningIngress[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((i) => i.close()));
});
afterAll(() => connection.close());

function start(overrides: Partial<IngressOptions> = {}) {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const ingress = createIngress({
    client,
    taskQueue: 'never-used',
    bankPublicKeyPem: bankPublicPem,
    allowedIps: [],
    maxBodyBytes: MAX_BODY,
    temporalTimeoutMs: 500,
    healthTimeoutMs: 500,
    logger: createLogger('ingress-hardening', sink, 'info'),
    ...overrides,
    limits: {
      headersTimeoutMs: LONG,
      requestTimeoutMs: LONG,
      bodyIdleTimeoutMs: LONG - 1,
      keepAliveTimeoutMs: LONG,
      ...overrides.limits,
    },
  });
  return ingress.listen(0, '127.0.0.1').then((listening) => {
    running.push(listening);
    return { ingress, listening, logs };
  });
}

interface Raw {
  socket: Socket;
  /** Everything the server sent, once the connection has closed (by either side). */
  closed: Promise<string>;
  /** Resolves once what the server sent contains `text` `times` times. */
  received(text: string, times?: number): Promise<string>;
}

/** A bare TCP client: the test decides byte by byte what the server gets. */
function rawClient(url: string): Promise<Raw> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = '';
  const waiters: (() => void)[] = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    data += chunk;
    waiters.forEach((w) => w());
  });
  socket.on('error', () => {}); // a reset is one way a refused connection ends; 'close' follows
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(data)));
  const received = (text: string, times = 1) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (data.split(text).length - 1 >= times) resolve(data);
      };
      waiters.push(check);
      socket.once('close', () => reject(new Error(`closed before ${times}× ${text}; got ${data}`)));
      check();
    });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, closed, received }));
    socket.once('error', reject);
  });
}

/** Writes one byte at a time until the server closes the connection. */
function dribble(socket: Socket, byte = 'a'): void {
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(byte);
  }, 10);
  socket.once('close', () => clearInterval(timer));
}

const unsignedPost = (path = '/webhooks/bank', extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: ingress\r\nContent-Type: application/json\r\nX-Partner-Sign: AAAA\r\n${extra}`;
const forgedRequest = () => {
  const body = '{"type":"payment_finished"}';
  return `${unsignedPost()}Content-Length: ${body.length}\r\n\r\n${body}`;
};

async function metric(listening: ListeningIngress, name: string): Promise<number> {
  const text = await (await fetch(`${listening.internalUrl}/metrics`)).text();
  const match = new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text);
  if (!match) throw new Error(`metric ${name} missing from:\n${text}`);
  return Number(match[1]);
}

describe('slow clients', () => {
  it('a body that stalls after the headers is answered 408 and the connection closed', async () => {
    const { listening, logs } = await start({ limits: { bodyIdleTimeoutMs: 200 } });
    const conn = await rawClient(listening.url);
    conn.socket.write(`${unsignedPost()}Content-Length: 100\r\n\r\n{"type"`);
    const got = await conn.closed;
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expect(got).toMatch(/\r\nconnection: close\r\n/i);
    expect(got).toContain('{"outcome":"timeout"}');
    expect(await metric(listening, 'payrun_ingress_requests_total{outcome="timeout"}')).toBe(1);
    expect(logs.join('')).toMatch(/"outcome":"timeout","status":408/);
  });

  it('a body dribbled byte by byte is cut off by the whole-request timeout', async () => {
    // The body idle limit never fires (a byte comes every 10 ms); only the request timeout can end it.
    const { listening } = await start({
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 300, bodyIdleTimeoutMs: LONG },
    });
    const conn = await rawClient(listening.url);
    conn.socket.write(`${unsignedPost()}Content-Length: ${MAX_BODY}\r\n\r\n`);
    dribble(conn.socket);
    const got = await conn.closed;
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expect(await metric(listening, 'payrun_ingress_connection_errors_total{error="timeout"}')).toBe(1);
    // The handler never got a whole body, so nothing was verified or answered by it.
    expect(await metric(listening, 'payrun_ingress_request_duration_seconds_count')).toBe(0);
  });

  it('a chunked body dribbled byte by byte is cut off too', async () => {
    const { listening } = await start({
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 300, bodyIdleTimeoutMs: LONG },
    });
    const conn = await rawClient(listening.url);
    conn.socket.write(`${unsignedPost()}Transfer-Encoding: chunked\r\n\r\n`);
    const timer = setInterval(() => conn.socket.writable && conn.socket.write('1\r\na\r\n'), 10);
    conn.socket.once('close', () => clearInterval(timer));
    expect(await conn.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await metric(listening, 'payrun_ingress_connection_errors_total{error="timeout"}')).toBe(1);
  });

  it('headers sent slowly, or never, are cut off by the headers timeout', async () => {
    const { listening } = await start({ limits: { headersTimeoutMs: 300 } });
    const slow = await rawClient(listening.url);
    slow.socket.write('POST /webhooks/bank HTTP/1.1\r\nHost: ingress\r\nX-Padding: ');
    dribble(slow.socket);
    const silent = await rawClient(listening.url);
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await metric(listening, 'payrun_ingress_connection_errors_total{error="timeout"}')).toBe(2);
  });

  it('an idle kept-alive connection is closed after serving its requests', async () => {
    const { listening } = await start({ limits: { keepAliveTimeoutMs: 200 } });
    const conn = await rawClient(listening.url);
    // Two requests on one connection: kept alive between them, then closed once idle.
    conn.socket.write(forgedRequest() + forgedRequest());
    const got = await conn.closed;
    expect(got.match(/HTTP\/1\.1 401 /g)).toHaveLength(2);
    expect(got).not.toMatch(/connection: close/i);
  });

  it('counts requests that are not HTTP at all', async () => {
    const { listening } = await start();
    const conn = await rawClient(listening.url);
    conn.socket.write('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n');
    expect(await conn.closed).toMatch(/^HTTP\/1\.1 400 /);
    expect(await metric(listening, 'payrun_ingress_connection_errors_total{error="malformed"}')).toBe(1);
  });
});

describe('connection cap', () => {
  it('refuses a connection beyond maxConnections while the open ones keep working', async () => {
    const { ingress, listening } = await start({ limits: { maxConnections: 2 } });
    const serverSockets: Socket[] = [];
    ingress.server.on('connection', (s: Socket) => serverSockets.push(s));

    const a = await rawClient(listening.url);
    const b = await rawClient(listening.url);
    a.socket.write(forgedRequest());
    b.socket.write(forgedRequest());
    // Answered: both are accepted and held open (keep-alive) from here on.
    await a.received('HTTP/1.1 401 ');
    await b.received('HTTP/1.1 401 ');

    const refused = await rawClient(listening.url);
    refused.socket.write(forgedRequest());
    expect(await refused.closed).toBe('');
    expect(await metric(listening, 'payrun_ingress_connections_dropped_total')).toBe(1);
    expect(await metric(listening, 'payrun_ingress_connections_open')).toBe(2);

    a.socket.write(forgedRequest());
    b.socket.write(forgedRequest());
    await a.received('HTTP/1.1 401 ', 2);
    await b.received('HTTP/1.1 401 ', 2);

    // A freed slot is taken again.
    const freed = new Promise((resolve) => serverSockets[0]!.once('close', resolve));
    a.socket.end();
    await freed;
    const next = await rawClient(listening.url);
    next.socket.write(forgedRequest());
    await next.received('HTTP/1.1 401 ');
    b.socket.destroy();
    next.socket.destroy();
  });
});

describe('ports and sources', () => {
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it('an unlisted source gets 403 on every route of the bank-facing port, whatever it claims', async () => {
    const { listening } = await start({ allowedIps: ['84.201.171.246', '84.252.136.174'] });
    for (const path of ['/healthz', '/metrics', '/anything']) {
      expect((await get(`${listening.url}${path}`)).status).toBe(403);
    }
    const body = '{"type":"payment_finished"}';
    const spoofed = await fetch(`${listening.url}/webhooks/bank`, {
      method: 'POST',
      headers: {
        'x-partner-sign': signBody(body, bankKeys.privateKey),
        'x-forwarded-for': '84.201.171.246',
        'x-real-ip': '84.201.171.246',
        forwarded: 'for=84.201.171.246',
      },
      body,
    });
    expect(spoofed.status).toBe(403);
    expect(await metric(listening, 'payrun_ingress_requests_total{outcome="forbidden"}')).toBe(4);
  });

  it('health and metrics live on the internal port only; webhooks on the bank-facing port only', async () => {
    const { listening } = await start();
    expect((await get(`${listening.url}/healthz`)).status).toBe(404);
    expect((await get(`${listening.url}/metrics`)).status).toBe(404);

    const metrics = await get(`${listening.internalUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# TYPE payrun_ingress_requests_total counter');
    // Temporal is unreachable here (a closed port), so the probe must say so rather than pass.
    const health = await get(`${listening.internalUrl}/healthz`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.text)).toMatchObject({ status: 'unavailable', temporal: { reachable: false } });

    const post = await fetch(`${listening.internalUrl}/webhooks/bank`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(404);
  });

  it('the internal port defaults to loopback and answers even when the bank-facing one is full', async () => {
    const { listening } = await start({ limits: { maxConnections: 1 } });
    expect(new URL(listening.internalUrl).hostname).toBe('127.0.0.1');
    const hog = await rawClient(listening.url);
    hog.socket.write(forgedRequest());
    await hog.received('HTTP/1.1 401 ');
    const refused = await rawClient(listening.url);
    expect(await refused.closed).toBe('');
    expect((await get(`${listening.internalUrl}/metrics`)).status).toBe(200);
    hog.socket.destroy();
  });
});

describe('the bank public key', () => {
  it('is parsed once when the ingress is created, not per webhook', async () => {
    const parse = jest.spyOn(nodeCrypto, 'createPublicKey');
    try {
      const { listening } = await start();
      expect(parse).toHaveBeenCalledTimes(1);
      const body = Buffer.from('{"type":"payment_finished","session":{"id":"ps_1","status":"accepted"}}');
      const post = (key: KeyObject) =>
        fetch(`${listening.url}/webhooks/bank`, {
          method: 'POST',
          headers: { 'x-partner-sign': signBody(body, key) },
          body,
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));
      expect(await post(strangerKeys.privateKey)).toEqual({ status: 401, body: { outcome: 'unauthorized' } });
      // Past the signature check: only the (unreachable) Temporal stops it.
      expect(await post(bankKeys.privateKey)).toEqual({ status: 503, body: { outcome: 'unavailable' } });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('a key that is not a public key fails at creation', () => {
    expect(() =>
      createIngress({
        client,
        taskQueue: 'never-used',
        bankPublicKeyPem: '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n',
        allowedIps: [],
        maxBodyBytes: MAX_BODY,
      }),
    ).toThrow();
  });
});
