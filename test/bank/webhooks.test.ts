import { signBody, sessionIdOf, verifyWebhook, type BankWebhookEvent } from '../../src/bank';
import { makeKeyPair } from './helpers/bank-server';

/** Webhooks as the ingress receives them: raw bytes plus X-PARTNER-SIGN from the bank's key. */

const bank = makeKeyPair();
const stranger = makeKeyPair();

const signed = (body: unknown) => {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { raw, sign: signBody(raw, bank.privateKey) };
};
const session = { id: 'ps_7', status: 'in_progress', next_action: 'confirm' };

const topup = {
  inn: '7707083893',
  kpp: '770701001',
  account_number: '40702810000000000001',
  account_balance: 5000000,
  doc_id: 'd-1',
  doc_num: '17',
  amount: 150000,
  currency: 'RUB',
  paymentDate: '2025-05-14T10:00:00+03:00',
  contragent_account_number: '40702810000000000009',
  contragent_bank_bik: '044525225',
};

const SEVEN: [string, unknown, string | undefined][] = [
  ['ready_to_confirm', { type: 'ready_to_confirm', session, confirm_information: { opaque: 1 } }, 'ps_7'],
  ['payment_finished', { type: 'payment_finished', session: { ...session, status: 'accepted' } }, 'ps_7'],
  ['action_required', { type: 'action_required', session }, 'ps_7'],
  ['ready_to_capture', { type: 'ready_to_capture', session }, 'ps_7'],
  ['payment_refunded', { type: 'payment_refunded', session }, 'ps_7'],
  [
    'confirmation_payout',
    {
      type: 'confirmation_payout',
      event: "Funds credited recipient's account",
      event_date: '2025-05-14T10:00:00Z',
      transaction_id: 'tx_1',
      session_id: 'ps_8',
    },
    'ps_8',
  ],
  ['nominal_topup', topup, undefined],
];

test.each(SEVEN)('%s: verified and typed', (type, body, sessionId) => {
  const { raw, sign } = signed(body);
  const res = verifyWebhook(raw, sign, bank.publicPem);
  expect(res.ok).toBe(true);
  if (!res.ok) return;
  expect(res.event.type).toBe(type);
  expect(sessionIdOf(res.event)).toBe(sessionId);
});

test('nominal_topup has no type in the spec: recognised by its fields', () => {
  const { raw, sign } = signed(topup);
  const res = verifyWebhook(raw, sign, bank.publicPem);
  expect(res).toMatchObject({ ok: true, event: { type: 'nominal_topup', amount: 150000, doc_id: 'd-1' } });
});

test('a signature from another key, a tampered body or no header → bad_signature', () => {
  const { raw, sign } = signed({ type: 'payment_finished', session });
  const foreign = signBody(raw, stranger.privateKey);
  expect(verifyWebhook(raw, foreign, bank.publicPem)).toEqual({ ok: false, reason: 'bad_signature' });
  const tampered = Buffer.from(raw.toString().replace('ps_7', 'ps_6'));
  expect(verifyWebhook(tampered, sign, bank.publicPem)).toEqual({ ok: false, reason: 'bad_signature' });
  expect(verifyWebhook(raw, undefined, bank.publicPem)).toEqual({ ok: false, reason: 'bad_signature' });
  expect(verifyWebhook(raw, 'not base64 at all!', bank.publicPem)).toEqual({
    ok: false,
    reason: 'bad_signature',
  });
});

test('a correctly signed body that is not JSON → bad_json', () => {
  const { raw, sign } = signed('{"type": "payment_finished",');
  expect(verifyWebhook(raw, sign, bank.publicPem)).toEqual({ ok: false, reason: 'bad_json' });
});

test('unknown event types are returned, not thrown, with the raw body', () => {
  const body = { type: 'payout_teleported', session: { id: 'ps_9' }, extra: [1] };
  const { raw, sign } = signed(body);
  const res = verifyWebhook(raw, sign, bank.publicPem);
  expect(res).toEqual({ ok: true, event: { type: 'unknown', raw: body } });
  if (res.ok) expect(sessionIdOf(res.event)).toBe('ps_9');
  const untyped = signed({ something: 'else' });
  expect(verifyWebhook(untyped.raw, untyped.sign, bank.publicPem)).toEqual({
    ok: true,
    event: { type: 'unknown', raw: { something: 'else' } },
  });
});

test('a known type without what it must carry → bad_shape with the field', () => {
  const { raw, sign } = signed({ type: 'payment_finished' });
  expect(verifyWebhook(raw, sign, bank.publicPem)).toEqual({
    ok: false,
    reason: 'bad_shape',
    issues: [{ field: 'session', rule: 'required' }],
  });
});

test('new fields pass through and v2 names arrive as the caller model', () => {
  const body = {
    type: 'payment_finished',
    new_top_level: 'kept',
    session: {
      id: 'ps_3',
      status: 'accepted',
      payout_list: [{ id: 'po_3', status: 'succeeded', payout_details: { type: 'card' }, new_field: 1 }],
      payment_list: [{ id: 'pm_3', status: 'succeeded', recurrent: { token: 'rt_1', is_active: true } }],
    },
  };
  const { raw, sign } = signed(body);
  const res = verifyWebhook(raw, sign, bank.publicPem);
  expect(res.ok).toBe(true);
  const event = (res as { event: BankWebhookEvent }).event;
  if (event.type !== 'payment_finished') throw new Error(`unexpected ${event.type}`);
  expect(event).toHaveProperty('new_top_level', 'kept');
  expect(event.session.payments![0]).toMatchObject({
    id: 'po_3',
    payment_method: { type: 'card' },
    new_field: 1,
  });
  expect(event.session.acquiring_payments![0]!.recurrent!.token).toBe('rt_1');
  expect(event.session).not.toHaveProperty('payout_list');
});

test('a header with surrounding whitespace still verifies', () => {
  const { raw, sign } = signed({ type: 'ready_to_capture', session });
  expect(verifyWebhook(raw, ` ${sign} `, bank.publicPem).ok).toBe(true);
});
