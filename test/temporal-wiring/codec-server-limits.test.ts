import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { EncryptionCodec, KeyRing } from '../../src/temporal';
import {
  createCodecServer,
  type CodecConnectionLimits,
  type ListeningCodecServer,
} from '../../src/temporal/codec-server';

// Issue 23: the codec server ran on Node's defaults (headers held 66 s, a slow body 306 s, 1 000
// connections all open) and answered 500 for a path with malformed %-encoding. Over real sockets.
const TOKEN = 'operator-token-0123456789abcdef';
const codec = new EncryptionCodec(new KeyRing([{ id: 'k1', key: randomBytes(32) }]));
/** Every limit a test is not about stays far beyond jest's 120 s, so only the one under test can fire. */
const LONG = 600_000;

const running: ListeningCodecServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(limits: Partial<CodecConnectionLimits>): Promise<ListeningCodecServer> {
  const server = await createCodecServer({
    codec,
    token: TOKEN,
    corsOrigins: [],
    namespace: 'default',
    limits: {
      headersTimeoutMs: LONG,
      requestTimeoutMs: LONG,
      bodyIdleTimeoutMs: LONG - 1,
      keepAliveTimeoutMs: LONG,
      ...limits,
    },
  }).listen(0, '127.0.0.1');
  running.push(server);
  return server;
}

/** A bare TCP client; `closed` is everything the server sent once the connection ended. */
function rawClient(url: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => {}); // a reset is one way a refused connection ends
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(data)));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

function dribble(socket: Socket): void {
  const timer = setInterval(() => socket.writable && socket.write('a'), 10);
  socket.once('close', () => clearInterval(timer));
}

const decodeHeaders = (length: number) =>
  `POST /decode HTTP/1.1\r\nHost: codec\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('the codec server cuts slow clients', () => {
  it('headers sent slowly, or never, are cut off by the headers timeout', async () => {
    const server = await start({ headersTimeoutMs: 300 });
    const slow = await rawClient(server.url);
    slow.socket.write('POST /decode HTTP/1.1\r\nHost: codec\r\nX-Padding: ');
    dribble(slow.socket);
    const silent = await rawClient(server.url);
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a body that stalls is answered 408 and the connection closed', async () => {
    const server = await start({ bodyIdleTimeoutMs: 200 });
    const conn = await rawClient(server.url);
    conn.socket.write(`${decodeHeaders(100)}{"payloads"`);
    const got = await conn.closed;
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expect(got).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('a body dribbled byte by byte is cut off by the whole-request timeout', async () => {
    const server = await start({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
    const conn = await rawClient(server.url);
    conn.socket.write(decodeHeaders(1_000_000));
    dribble(conn.socket);
    expect(await conn.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('refuses connections beyond the cap while an open one still works', async () => {
    const server = await start({ maxConnections: 2 });
    const held = [await rawClient(server.url), await rawClient(server.url)];
    const third = await rawClient(server.url);
    expect(await third.closed).toBe(''); // closed unanswered
    held[0]!.socket.write(`${decodeHeaders(2)}{}`);
    await new Promise<void>((resolve) =>
      held[0]!.socket.on('data', (chunk: string) => chunk.startsWith('HTTP/1.1 200') && resolve()),
    );
    held.forEach((h) => h.socket.destroy());
  });

  it('answers 400, not 500, for a path with malformed %-encoding', async () => {
    const server = await start({});
    for (const path of ['/%E0%A4%A/decode', '/%/decode', '/%zz']) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(400);
    }
  });
});
