import { generateKeyPairSync } from 'node:crypto';
import { request } from 'undici';
import { TEST_CARDS, type RunningSandbox } from '../../src/sandbox';
import { card, PROJECT, rub, SignedClient, startTestSandbox, waitFor } from './signed-client';

const T = { readyToConfirmMs: 60_000, paymentFinishedMs: 60_000 };
let sb: RunningSandbox;
let client: SignedClient;

beforeEach(async () => {
  ({ sb, client } = await startTestSandbox({ timings: T }));
});
afterEach(() => sb.close());

const body = (amount = 1000) => ({ payment_method: card(TEST_CARDS.SUCCESS), amount_details: rub(amount) });
const sessions = () => Object.keys(sb.sandbox.state.sessions).length;

describe('authentication', () => {
  test('missing project, unknown project, missing or wrong signature: clear error and no state change', async () => {
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const cases = [
      [await client.v1('session/init/payout', body(), { project: null }), 401, 'unauthorized'],
      [await client.v1('session/init/payout', body(), { project: 'nope' }), 403, 'partner_project_not_found'],
      [await client.v1('session/init/payout', body(), { sign: null }), 401, 'invalid_signature'],
      [
        await new SignedClient(sb.url, other.privateKey).v1('session/init/payout', body()),
        401,
        'invalid_signature',
      ],
      [
        await client.v1('session/init/payout', body(), { sign: 'bm90IGEgc2lnbmF0dXJl' }),
        401,
        'invalid_signature',
      ],
    ] as const;
    for (const [r, status, code] of cases) {
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ status: 'error', error: { code, description: expect.any(String) } });
    }
    // signature of another body (the body was altered in transit)
    const text = JSON.stringify(body(1000));
    const { signBody } = await import('../../src/bank/signing');
    const sig = signBody(text, client.privateKey);
    const tampered = await client.v1(
      'session/init/payout',
      {},
      { rawBody: text.replace('1000', '9000'), sign: sig },
    );
    expect(tampered.status).toBe(401);
    expect(sessions()).toBe(0);
    expect(sb.ledger()).toHaveLength(0);
  });

  test('bad JSON, wrong content type, unknown method', async () => {
    const bad = await client.v1('session/create', {}, { rawBody: '{"a":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      code: 'invalid_request',
      description: expect.stringContaining('not valid JSON'),
    });
    const ct = await client.v1('session/create', {}, { contentType: 'text/plain' });
    expect(ct.body.error.description).toContain('Content-Type');
    const nf = await client.v1('session/teleport', {});
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe('method_not_found');
    const v2only = await client.v2('session/init/payout', body());
    expect(v2only.status).toBe(404);
  });
});

describe('idempotency', () => {
  test('same key + same params → first answer, one operation; other params → mismatch', async () => {
    const a = await client.v1('session/init/payout', body(), { idempotencyKey: 'batch1-row1' });
    const b = await client.v1('session/init/payout', body(), { idempotencyKey: 'batch1-row1' });
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(sessions()).toBe(1);
    const c = await client.v1('session/init/payout', body(2000), { idempotencyKey: 'batch1-row1' });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('idempotency_key_params_mismatch');
    expect(sessions()).toBe(1);
    // keys are per project... and expire after 24 hours of sandbox time
    await sb.advance(24 * 3600_000 + 1);
    const d = await client.v1('session/init/payout', body(2000), { idempotencyKey: 'batch1-row1' });
    expect(d.status).toBe(200);
    expect(sessions()).toBe(2);
  });

  test('key length 4..64 and methods without keys', async () => {
    expect(
      (await client.v1('session/create', {}, { idempotencyKey: 'abc' })).body.error.description,
    ).toContain('X-PARTNER-IDEMPOTENCY-KEY: invalid_length');
    expect((await client.v1('session/create', {}, { idempotencyKey: 'k'.repeat(65) })).status).toBe(400);
    expect((await client.v1('session/create', {}, { idempotencyKey: 'k'.repeat(64) })).status).toBe(200);
    expect((await client.v1('session/create', {}, { idempotencyKey: 'kkkk' })).status).toBe(200);
    const st = await client.v1('session/status', { session_id: 'ps_1' }, { idempotencyKey: 'status-key' });
    expect(st.status).toBe(400);
    expect(st.body.error.code).toBe('idempotency_key_not_supported');
  });

  test('same key while the first request still runs → idempotency_key_already_exists', async () => {
    // The first request is held 1 s after it takes its key; the second goes in once the sandbox shows
    // the key taken (not after a fixed wait, which a loaded machine can outrun), so only one local
    // round trip has to fit in the hold.
    sb.setFaults({
      http: [{ kind: 'latency', latencyMs: 1_000, times: 1, paths: ['/api/v1/session/init/payout'] }],
    });
    const first = client.v1('session/init/payout', body(), { idempotencyKey: 'slow-key' });
    await waitFor(() => sb.sandbox.state.idempotency[`${PROJECT}:slow-key`]?.state === 'running', 60_000);
    const second = await client.v1('session/init/payout', body(), { idempotencyKey: 'slow-key' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('idempotency_key_already_exists');
    expect((await first).status).toBe(200);
    expect(sessions()).toBe(1);
  });
});

describe('faults', () => {
  test('error after apply: state changed, answer lost; the retry with the key gets the stored answer, money moves once', async () => {
    sb.setFaults({
      http: [{ kind: 'error_after', status: 503, times: 1, paths: ['/api/v1/session/init/payout'] }],
    });
    const lost = await client.v1('session/init/payout', body(), { idempotencyKey: 'lost-answer' });
    expect(lost.status).toBe(503);
    expect(sessions()).toBe(1);
    const retry = await client.v1('session/init/payout', body(), { idempotencyKey: 'lost-answer' });
    expect(retry.status).toBe(200);
    expect(sessions()).toBe(1);
    const id = retry.body.session.id;
    await sb.advance(T.readyToConfirmMs);
    sb.setFaults({ http: [{ kind: 'error_after', times: 1, paths: ['/api/v1/session/confirm'] }] });
    expect((await client.v1('session/confirm', { session_id: id })).status).toBe(500);
    expect((await client.v1('session/confirm', { session_id: id })).status).toBe(200);
    await sb.advance(T.paymentFinishedMs);
    expect(sb.ledger()).toHaveLength(1);
  });

  test('error before apply: nothing changes and the key stays free; reset destroys the connection', async () => {
    sb.setFaults({ http: [{ kind: 'error_before', times: 1 }] });
    const r = await client.v1('session/init/payout', body(), { idempotencyKey: 'before-key' });
    expect(r.status).toBe(500);
    expect(sessions()).toBe(0);
    expect((await client.v1('session/init/payout', body(), { idempotencyKey: 'before-key' })).status).toBe(
      200,
    );
    sb.setFaults({ http: [{ kind: 'reset_after', times: 1 }] });
    await expect(
      client.v1('session/init/payout', body(5000), { idempotencyKey: 'reset-key' }),
    ).rejects.toThrow();
    expect(sessions()).toBe(2);
  });

  test('rates are seeded: the same seed gives the same sequence', async () => {
    const run = async (): Promise<number[]> => {
      await client.admin('faults', {
        seed: 42,
        http: [{ kind: 'error_before', rate: 0.5, paths: ['/api/v1/session/create'] }],
      });
      const out: number[] = [];
      for (let i = 0; i < 12; i++) out.push((await client.v1('session/create', {})).status);
      return out;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(a).toContain(500);
    expect(a).toContain(200);
    const bad = await client.admin('faults', { http: [{ kind: 'explode' }] });
    expect(bad.error.description).toContain('http[0].kind');
  });
});

test('admin endpoints are off when admin is false', async () => {
  const { sb: off } = await startTestSandbox({ admin: false });
  const res = await request(`${off.url}/__admin/ledger`);
  expect(res.statusCode).toBe(404);
  await res.body.dump();
  await off.close();
});
