import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec, KeyRing } from '../../src/temporal';
import { createCodecServer, type ListeningCodecServer } from '../../src/temporal/codec-server';

const ProtoPayload = temporal.api.common.v1.Payload;
const TOKEN = 'operator-token-0123456789abcdef';
const UI = 'http://localhost:8233';
const codec = new EncryptionCodec(new KeyRing([{ id: 'k1', key: randomBytes(32) }]));
const row = { cardNumber: '4111111111111111', inn: '500100732259' };

let server: ListeningCodecServer;
beforeAll(async () => {
  server = await createCodecServer({ codec, token: TOKEN, corsOrigins: [UI], namespace: 'default' }).listen(
    0,
    '127.0.0.1',
  );
});
afterAll(() => server.close());

async function encryptedJson() {
  const [p] = await codec.encode([defaultPayloadConverter.toPayload(row)]);
  return ProtoPayload.toObject(ProtoPayload.create(p), { bytes: String });
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });

describe('codec server (Temporal remote codec protocol)', () => {
  it('decodes for a bearer token, as `temporal workflow show --codec-auth` sends it', async () => {
    const res = await post(
      '/decode',
      { payloads: [await encryptedJson()] },
      { Authorization: `Bearer ${TOKEN}` },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { payloads: Record<string, unknown>[] };
    const decoded = ProtoPayload.fromObject(body.payloads[0]!);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual(row);
  });

  it('decodes for a token in the path, as the UI calls <endpoint>/decode', async () => {
    const res = await post(`/${TOKEN}/decode`, { payloads: [await encryptedJson()] });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain(Buffer.from(JSON.stringify(row)).toString('base64'));
  });

  it('encodes, and what it encodes decodes back', async () => {
    const plain = ProtoPayload.toObject(ProtoPayload.create(defaultPayloadConverter.toPayload(row)), {
      bytes: String,
    });
    const enc = (await (
      await post('/encode', { payloads: [plain] }, { Authorization: `Bearer ${TOKEN}` })
    ).json()) as {
      payloads: Record<string, unknown>[];
    };
    expect(JSON.stringify(enc)).not.toContain(plain.data as string);
    const [back] = await codec.decode([ProtoPayload.fromObject(enc.payloads[0]!)]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual(row);
  });

  it('takes `{}` as no payloads (proto JSON drops an empty list; the CLI sends it for a query without arguments)', async () => {
    const res = await post('/encode', {}, { Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ payloads: [] });
    const bad = await post('/encode', { payloads: 'x' }, { Authorization: `Bearer ${TOKEN}` });
    expect(bad.status).toBe(400);
  });

  it('answers 401 without the token, or with a wrong one, and reveals nothing', async () => {
    for (const res of [
      await post('/decode', { payloads: [await encryptedJson()] }),
      await post('/decode', { payloads: [await encryptedJson()] }, { Authorization: 'Bearer wrong-token' }),
      await post('/wrong-token/decode', { payloads: [await encryptedJson()] }),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('4111');
    }
  });

  it('answers the UI origin’s CORS preflight with credentials, and nobody else’s', async () => {
    const pre = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: UI,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(UI);
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    const res = await post(`/${TOKEN}/decode`, { payloads: [] }, { Origin: UI });
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const stranger = await post(`/${TOKEN}/decode`, { payloads: [] }, { Origin: 'http://evil.example' });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses another namespace and a payload of an unknown key, saying why', async () => {
    const other = await post(
      '/decode',
      { payloads: [] },
      { Authorization: `Bearer ${TOKEN}`, 'X-Namespace': 'other' },
    );
    expect(other.status).toBe(403);
    const [foreign] = await new EncryptionCodec(new KeyRing([{ id: 'k-gone', key: randomBytes(32) }])).encode(
      [defaultPayloadConverter.toPayload(row)],
    );
    const res = await post(
      '/decode',
      { payloads: [ProtoPayload.toObject(ProtoPayload.create(foreign), { bytes: String })] },
      { Authorization: `Bearer ${TOKEN}` },
    );
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(/key id "k-gone"/);
  });
});
