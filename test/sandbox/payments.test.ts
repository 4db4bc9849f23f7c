import { TEST_CARDS, TEST_PHONES, type RunningSandbox } from '../../src/sandbox';
import { type J, payCard, rub, type SignedClient, startTestSandbox, WebhookReceiver } from './signed-client';

const T = { readyToConfirmMs: 60_000, paymentFinishedMs: 60_000, refundMs: 60_000, fpsPaymentMs: 60_000 };
let sb: RunningSandbox;
let client: SignedClient;
let hooks: WebhookReceiver;

beforeEach(async () => {
  hooks = await new WebhookReceiver().start();
  ({ sb, client } = await startTestSandbox({ timings: T, webhookUrl: hooks.url, optionalWebhooks: true }));
});
afterEach(async () => {
  await sb.close();
  await hooks.close();
});

const payment = (number: string, amount = 10_000, extra: Record<string, unknown> = {}) => ({
  payment_details: payCard(number),
  amount_details: rub(amount),
  customer: { reference: 'cust-1' },
  ...extra,
});

async function paid(body: unknown): Promise<J> {
  const r = await client.v1('session/init/payment', body);
  expect(r.status).toBe(200);
  await sb.advance(T.readyToConfirmMs);
  await client.v1('session/confirm', { session_id: r.body.session.id });
  await sb.advance(T.paymentFinishedMs);
  return (await client.v1('session/status', { session_id: r.body.session.id })).body.session;
}

test('payment with recurrent token; token disabled shows the year-2000 finished_at', async () => {
  const s = await paid(
    payment(TEST_CARDS.SUCCESS, 10_000, {
      payment_options: { recurrent: true, return_url: 'https://shop.example/back' },
    }),
  );
  expect(s.status).toBe('accepted');
  expect(s.acquiring_payments[0].status).toBe('succeeded');
  const fin = hooks.ofType('payment_finished')[0]!.body.session.acquiring_payments[0];
  expect(fin.recurrent).toMatchObject({
    token: expect.any(String),
    is_active: true,
    type: 'recurrent_token',
  });
  const token = fin.recurrent.token as string;
  const again = await paid({
    payment_details: { type: 'recurrent', recurrent: { token } },
    amount_details: rub(500),
    customer: { reference: 'cust-1' },
  });
  expect(again.acquiring_payments[0].status).toBe('succeeded');
  const off = await client.v1('recurrent/disable', { recurrent: { token } });
  expect(off.body.recurrent).toMatchObject({ is_active: false, finished_at: '2000-01-01T00:00:00.000000Z' });
  const info = await client.v1('token/info', { type: 'recurrent_token', recurrent_token: { token } });
  expect(info.body.info.is_active).toBe(false);
  const refused = await client.v1('session/init/payment', {
    payment_details: { type: 'recurrent', recurrent: { token } },
    amount_details: rub(500),
    customer: { reference: 'cust-1' },
  });
  expect(refused.body.error.description).toContain('payment_details.recurrent.token: token is disabled');
  expect(sb.ledger().map((e) => e.kind)).toEqual(['payment', 'payment']);
});

test('refunds: partial, then the rest, never above what remains; payment_refunded', async () => {
  const s = await paid(payment(TEST_CARDS.SUCCESS, 10_000));
  const p1 = await client.v1('session/refund', { session_id: s.id, amount_details: rub(4_000) });
  expect(p1.body.session.acquiring_payments[0].refunds[0]).toMatchObject({
    status: 'in_progress',
    amount_details: rub(4_000),
  });
  const over = await client.v1('session/refund', { session_id: s.id, amount_details: rub(6_001) });
  expect(over.body.error.description).toBe(
    'amount_details.amount: must not be greater than the refundable amount 6000',
  );
  await sb.advance(T.refundMs);
  const ev = hooks.ofType('payment_refunded');
  expect(ev).toHaveLength(1);
  expect(ev[0]!.body.session.acquiring_payments[0].refunds[0]).toMatchObject({
    id: expect.stringMatching(/^rf_\d+$/),
    status: 'accepted',
  });
  await client.v1('session/refund', { session_id: s.id });
  await sb.advance(T.refundMs);
  const done = await client.v1('session/refund', { session_id: s.id });
  expect(done.body.error.description).toContain('already fully refunded');
  expect(
    sb
      .ledger()
      .filter((e) => e.kind === 'refund')
      .map((e) => e.amount),
  ).toEqual([4_000, 6_000]);
  // refunds only of payments
  const c = await client.v1('session/create', {});
  expect((await client.v1('session/refund', { session_id: c.body.session.id })).body.error.code).toBe(
    'invalid_request',
  );
});

test('two-stage payment: ready_to_capture, capture not above the held amount, partial capture', async () => {
  const r = await client.v2('session/init/payment', payment(TEST_CARDS.TWO_STAGE, 10_000));
  expect(r.body.error).toBeUndefined();
  await sb.advance(T.readyToConfirmMs);
  expect(hooks.ofType('ready_to_capture')).toHaveLength(1);
  expect(hooks.ofType('ready_to_confirm')).toHaveLength(0);
  const id = r.body.session.id;
  expect((await client.v2('session/status', { session_id: id })).body.session.next_action).toBe('capture');
  const over = await client.v2('session/capture', { session_id: id, amount_details: rub(10_001) });
  expect(over.body.error.description).toContain('must not be greater than the held amount 10000');
  await client.v2('session/capture', { session_id: id, amount_details: rub(7_000) });
  await sb.advance(T.paymentFinishedMs);
  const s = (await client.v2('session/status', { session_id: id })).body.session;
  expect(s.payment_list[0]).toMatchObject({ status: 'succeeded', amounts: { net: rub(7_000) } });
  expect(s.actions.capture).toBeDefined();
  expect(sb.ledger()).toEqual([expect.objectContaining({ kind: 'capture', amount: 7_000 })]);
  // cancel a hold
  const h = await client.v2('session/init/payment', payment(TEST_CARDS.TWO_STAGE, 5_000));
  await sb.advance(T.readyToConfirmMs);
  expect((await client.v2('session/cancel', { session_id: h.body.session.id })).body.session.status).toBe(
    'cancelled',
  );
});

test('3DS: action_required, completes through the redirect, expires after 20 minutes', async () => {
  const a = await client.v1('session/init/payment', payment(TEST_CARDS.THREE_DS));
  const b = await client.v1('session/init/payment', payment(TEST_CARDS.THREE_DS));
  await sb.advance(T.readyToConfirmMs);
  const ar = hooks.ofType('action_required');
  expect(ar).toHaveLength(2);
  const url = ar[0]!.body.session.acquiring_payments[0].customer_interaction.redirect.url as string;
  expect((await fetch(url)).status).toBe(200);
  expect(
    (await client.v1('session/status', { session_id: a.body.session.id })).body.session.next_action,
  ).toBe('confirm');
  await sb.advance(20 * 60_000);
  const sB = (await client.v1('session/status', { session_id: b.body.session.id })).body.session;
  expect(sB.status).toBe('cancelled');
  expect(sB.acquiring_payments[0].error.code).toBe('3ds_timeout');
});

test('FPS payment: QR paid, or qr_expired', async () => {
  const fps = (phone: string) => ({
    payment_details: {
      type: 'faster_payment_system',
      faster_payment_system: { phone, bank_id: '100000000111', description: 'order 1' },
    },
    amount_details: rub(3_000),
    customer: { reference: 'c' },
  });
  const ok = await client.v1('session/init/payment', fps(TEST_PHONES.FOUND));
  const exp = await client.v1('session/init/payment', fps(TEST_PHONES.QR_NEVER_PAID));
  await sb.advance(T.readyToConfirmMs + T.fpsPaymentMs);
  expect(
    (await client.v1('session/status', { session_id: ok.body.session.id })).body.session.acquiring_payments[0]
      .status,
  ).toBe('pending');
  await sb.advance(5 * 60_000);
  const e = (await client.v1('session/status', { session_id: exp.body.session.id })).body.session;
  expect(e.acquiring_payments[0].error.code).toBe('qr_expired');
});

test('sync payment: result in the answer, no webhooks; strict checks', async () => {
  const body = {
    ...payment(TEST_CARDS.SUCCESS, 2_000),
    payment_options: { return_url: 'https://shop.example/r' },
  };
  const r = await client.v1('session/init/payment/sync', body);
  expect(r.body.session.status).toBe('accepted');
  expect(r.body.session.acquiring_payments[0].status).toBe('succeeded');
  const d = await client.v1('session/init/payment/sync', {
    ...body,
    payment_details: payCard(TEST_CARDS.DECLINED_BY_ISSUER),
  });
  expect(d.body.session.status).toBe('cancelled');
  expect(d.body.session.acquiring_payments[0].error.code).toBe('declined_by_issuer_bank');
  const bad = await client.v1('session/init/payment/sync', {
    ...body,
    payment_options: { return_url: 'not a url' },
  });
  expect(bad.body.error.description).toContain('payment_options.return_url: must be a valid URL');
  await sb.advance(10 * 60_000);
  expect(hooks.received).toHaveLength(0);
  expect(sb.ledger()).toHaveLength(1);
});
