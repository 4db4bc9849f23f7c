import type { BankClient } from '../../src/bank';
import { clientFor, makeKeyPair, startBankServer, type BankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/** What the bank answers: unknown fields pass through, v2 names come back as the caller model. */

const keys = makeKeyPair();
let server: BankServer;
let v1: BankClient;
let v2: BankClient;

beforeAll(async () => {
  server = await startBankServer(keys.publicKey);
  v1 = clientFor(server, keys, { apiVersion: 1 });
  v2 = clientFor(server, keys, { apiVersion: 2 });
});
afterAll(async () => {
  await v1.close();
  await v2.close();
  await server.close();
});
beforeEach(() => {
  server.received.length = 0;
});

const v2Session = {
  id: 'ps_42',
  status: 'in_progress',
  brand_new_session_field: { nested: true },
  payout_list: [
    {
      id: 'po_1',
      status: 'in_progress',
      payout_details: { type: 'card', card: { last4: '1111', brand: 'visa' } },
      amount_details: { amount: 10000, currency: 'RUB' },
      metadata: { payments: 'mine', payment_method: 'untouched' },
      unknown_payout_field: 7,
    },
  ],
  payment_list: [
    { id: 'pm_1', status: 'succeeded', refunds: [{ id: 'rf_1', status: 'accepted', is_chargeback: true }] },
  ],
};

test('v2 response names are mapped to the caller model; metadata keeps its own keys', async () => {
  server.reply(() => ({ json: { status: 'ok', session: v2Session, envelope_extra: 'x' } }));
  const res = await v2.sessions.status({ session_id: 'ps_42' });
  expect(server.received[0]!.url).toBe('/api/v2/session/status');
  const payout = res.session.payments![0]!;
  expect(payout.payment_method).toEqual({ type: 'card', card: { last4: '1111', brand: 'visa' } });
  expect(payout.metadata).toEqual({ payments: 'mine', payment_method: 'untouched' });
  expect(res.session.acquiring_payments![0]!.refunds![0]!.is_chargeback).toBe(true);
  expect(res.session).not.toHaveProperty('payout_list');
  expect(res.session).not.toHaveProperty('payment_list');
  expect(payout).not.toHaveProperty('payout_details');
});

test('unknown fields at every level reach the caller', async () => {
  server.reply(() => ({ json: { status: 'ok', session: v2Session, envelope_extra: 'x' } }));
  const res = await v1.sessions.status({ session_id: 'ps_42' });
  expect(res).toHaveProperty('envelope_extra', 'x');
  expect(res.session).toHaveProperty('brand_new_session_field', { nested: true });
  expect(res.session.payments![0]).toHaveProperty('unknown_payout_field', 7);
});

test('a v1 client reads v2 names too (tolerance), and v1 names unchanged', async () => {
  server.reply(() => ({
    json: {
      status: 'ok',
      session: { id: 'ps_1', status: 'accepted', payments: [{ id: 'po_2', status: 'succeeded' }] },
    },
  }));
  const plain = await v1.sessions.initPayout({ payment_method: f.cardPayout, amount_details: f.amount });
  expect(plain.session.payments![0]!.id).toBe('po_2');
  server.reply(() => ({ json: { status: 'ok', session: v2Session } }));
  const mapped = await v1.sessions.status({ session_id: 'ps_42' });
  expect(mapped.session.payments![0]!.id).toBe('po_1');
});

test('fps/banks: the spec shape, a bare list and a data-wrapped list all read the same', async () => {
  const banks = [{ id: '100000000111', eng_name: 'Sber', ru_name: 'Сбер', bic: 'extra' }];
  for (const json of [
    { banks },
    { status: 'ok', banks },
    banks,
    { status: 'ok', data: { banks } },
    { data: banks },
  ]) {
    server.reply(() => ({ json }));
    const res = await v1.fps.banks();
    expect(res.status).toBe('ok');
    expect(res.banks).toEqual(banks);
  }
  expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(Array(5).fill('POST /api/v1/fps/banks'));
});

test('wallet balance: integer kopecks, also when sent as a digit string; fractions rejected', async () => {
  server.reply(() => ({
    json: { status: 'ok', data: { wallet_id: 'w_1', balance: 12345, currency: 'rub' } },
  }));
  expect((await v1.wallets.balance('w_1')).data.balance).toBe(12345);
  server.reply(() => ({
    json: { status: 'ok', data: { wallet_id: 'w_1', balance: '12345', currency: 'rub' } },
  }));
  expect((await v1.wallets.balance('w_1')).data.balance).toBe(12345);
  server.reply(() => ({
    json: { status: 'ok', data: { wallet_id: 'w_1', balance: 123.45, currency: 'rub' } },
  }));
  await expect(v1.wallets.balance('w_1')).rejects.toMatchObject({ code: 'response_validation' });
});

test('npd/request/status: pending, and each origin shape', async () => {
  const answers = [
    { status: 'pending' },
    { status: 'ok', is_professional_income_taxpayer: true, is_linked: false },
    { status: 'ok', bonus_amount: '10.00', unpaid_amount: '0', debt_amount: '0' },
    { status: 'ok', success: false, violations: ['phone', 'patronymic'] },
  ];
  for (const json of answers) {
    server.reply(() => ({ json }));
    expect(await v1.npd.requestStatus({ request_id: 'rq_1' })).toEqual(json);
  }
});

test('account statement transactions are read with their fields', async () => {
  const tx = {
    amount: 150000,
    currency: 'RUB',
    payment_date: '2025-05-14',
    bank_system_id: 'bs_1',
    purpose: 'Top-up',
    counter_party: { name: 'ООО Ромашка', account_number: '40702810000000000009', bank_code: '044525225' },
    type: 'credit',
  };
  server.reply(() => ({
    json: { status: 'ok', method: { name: 'account_statement', account_statement: { transactions: [tx] } } },
  }));
  const res = await v1.reports.accountStatement({
    account_number: '40702810000000000001',
    date_from: '2025-05-14',
    date_to: '2025-05-14',
  });
  expect(res.method.account_statement.transactions).toEqual([tx]);
});
