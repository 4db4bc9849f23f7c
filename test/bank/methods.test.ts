import type { BankClient, RequestOptions } from '../../src/bank';
import { clientFor, makeKeyPair, startBankServer, type BankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/**
 * Every method of the spec over real HTTP, in v1 and v2: the right HTTP method and path, the
 * right body (v2 names where the method has a v2 path), a valid signature and the headers.
 */

interface Row {
  client: string;
  method: 'GET' | 'POST';
  /** v1 path (or the unversioned wallet path). */
  path: string;
  hasV2: boolean;
  call: (bank: BankClient, opts: RequestOptions) => Promise<unknown>;
  /** Body in the caller model (v1 names); undefined for GET. */
  body: unknown;
}

const row = (client: string, path: string, hasV2: boolean, body: unknown, call: Row['call']): Row => ({
  client,
  method: 'POST',
  path,
  hasV2,
  call,
  body,
});

const payoutInit = {
  payment_method: f.fpsPayout,
  amount_details: f.amount,
  participant_details: f.participants,
};
const paymentInit = { payment_details: f.cardPayment, amount_details: f.amount, customer: f.customer };
const nominalPayout = {
  payment_method: f.ruAccountPayout,
  amount_details: f.amount,
  participant_details: {
    sender: { account: '40702810000000000001' },
    recipient: { beneficiary_id: 'ben_1', full_name: 'Иванов Иван' },
  },
};
const multiNominal = {
  payment_details: f.internalTransfer,
  payment_method: f.cardPayout,
  participant_details: f.participants,
  amount_details: f.amount,
  customer: f.customer,
};
const syncPayment = { ...paymentInit, payment_options: { return_url: 'https://shop.example/back' } };
const verification = {
  payment_method: {
    type: 'bank_account',
    bank_account: {
      system_type: 'faster_payment_system_verification',
      faster_payment_system_verification: { phone: '79001234567', bank_id: '100000000111' },
    },
  },
  participant_details: { recipient: { first_name: 'Иван', last_name: 'Иванов', middle_name: 'Иванович' } },
} as const;

export const ROWS: Row[] = [
  row(
    'sessions.create',
    'session/create',
    true,
    { payment_method: f.fpsPayout, amount_details: f.amount },
    (b, o) => b.sessions.create({ payment_method: f.fpsPayout, amount_details: f.amount }, o),
  ),
  row('sessions.initPayout', 'session/init/payout', false, payoutInit, (b, o) =>
    b.sessions.initPayout(payoutInit, o),
  ),
  row(
    'sessions.initPayoutFiscalization',
    'session/init/payout/fiscalization',
    false,
    { ...payoutInit, fiscalization_details: f.fiscalization },
    (b, o) =>
      b.sessions.initPayoutFiscalization({ ...payoutInit, fiscalization_details: f.fiscalization }, o),
  ),
  row('sessions.startPayout', 'session/start/payout', false, { session_id: 'ps_1' }, (b, o) =>
    b.sessions.startPayout({ session_id: 'ps_1' }, o),
  ),
  row(
    'sessions.startPayoutFiscalization',
    'session/start/payout/fiscalization',
    false,
    { session_id: 'ps_1', fiscalization_details: f.fiscalization },
    (b, o) =>
      b.sessions.startPayoutFiscalization({ session_id: 'ps_1', fiscalization_details: f.fiscalization }, o),
  ),
  row('sessions.initPayment', 'session/init/payment', true, paymentInit, (b, o) =>
    b.sessions.initPayment(paymentInit, o),
  ),
  row(
    'sessions.startPayment',
    'session/start/payment',
    false,
    { session_id: 'ps_1', amount_details: f.amount },
    (b, o) => b.sessions.startPayment({ session_id: 'ps_1', amount_details: f.amount }, o),
  ),
  row('sessions.initPaymentSync', 'session/init/payment/sync', false, syncPayment, (b, o) =>
    b.sessions.initPaymentSync(syncPayment, o),
  ),
  row('sessions.cancel', 'session/cancel', true, { session_id: 'ps_1' }, (b, o) =>
    b.sessions.cancel({ session_id: 'ps_1' }, o),
  ),
  row(
    'sessions.confirm',
    'session/confirm',
    true,
    { session_id: 'ps_1', confirm_information: { any: 'thing' } },
    (b, o) => b.sessions.confirm({ session_id: 'ps_1', confirm_information: { any: 'thing' } }, o),
  ),
  row('sessions.capture', 'session/capture', true, { session_id: 'ps_1', amount_details: f.amount }, (b, o) =>
    b.sessions.capture({ session_id: 'ps_1', amount_details: f.amount }, o),
  ),
  row('sessions.refund', 'session/refund', false, { session_id: 'ps_1', amount_details: f.amount }, (b, o) =>
    b.sessions.refund({ session_id: 'ps_1', amount_details: f.amount }, o),
  ),
  row('sessions.status', 'session/status', true, { session_id: 'ps_1' }, (b, o) =>
    b.sessions.status({ session_id: 'ps_1' }, o),
  ),
  row('nominal.create', 'session/create/nominal', true, { payment_method: f.ruAccountPayout }, (b, o) =>
    b.nominal.create({ payment_method: f.ruAccountPayout }, o),
  ),
  row('nominal.initPayout', 'session/init/payout/nominal', true, nominalPayout, (b, o) =>
    b.nominal.initPayout(nominalPayout, o),
  ),
  row('multi.createNominal', 'session/multi/create/nominal', true, multiNominal, (b, o) =>
    b.multi.createNominal(multiNominal, o),
  ),
  row('multi.initPaymentNominal', 'session/multi/init/payment/nominal', false, multiNominal, (b, o) =>
    b.multi.initPaymentNominal(multiNominal, o),
  ),
  row(
    'multi.startPaymentNominal',
    'session/multi/start/payment/nominal',
    false,
    { session_id: 'ps_1', payment_method: f.cardPayout },
    (b, o) => b.multi.startPaymentNominal({ session_id: 'ps_1', payment_method: f.cardPayout }, o),
  ),
  row('multi.init', 'session/multi/init', false, f.multiInit, (b, o) => b.multi.init(f.multiInit, o)),
  row('tokens.disableRecurrent', 'recurrent/disable', false, { recurrent: { token: 'rt_1' } }, (b, o) =>
    b.tokens.disableRecurrent({ recurrent: { token: 'rt_1' } }, o),
  ),
  row(
    'tokens.info',
    'token/info',
    false,
    { type: 'recurrent_token', recurrent_token: { token: 'rt_1' } },
    (b, o) => b.tokens.info({ type: 'recurrent_token', recurrent_token: { token: 'rt_1' } }, o),
  ),
  row('fps.banks', 'fps/banks', false, {}, (b, o) => b.fps.banks(o)),
  row('fps.customerVerification', 'fps/customer_verification', true, verification, (b, o) =>
    b.fps.customerVerification(verification, o),
  ),
  row('npd.check', 'npd/check', false, { tax_reference: '500100732259' }, (b, o) =>
    b.npd.check({ tax_reference: '500100732259' }, o),
  ),
  row('npd.accountStatus', 'npd/taxpayer/account_status', false, { tax_reference: '500100732259' }, (b, o) =>
    b.npd.accountStatus({ tax_reference: '500100732259' }, o),
  ),
  row(
    'npd.checkPersonalInfo',
    'npd/taxpayer/check_personal_info',
    false,
    {
      first_name: 'Иван',
      second_name: 'Иванов',
      patronymic: 'Иванович',
      tax_reference: '500100732259',
      phone: '79001234567',
    },
    (b, o) =>
      b.npd.checkPersonalInfo(
        {
          first_name: 'Иван',
          second_name: 'Иванов',
          patronymic: 'Иванович',
          tax_reference: '500100732259',
          phone: '79001234567',
        },
        o,
      ),
  ),
  row('npd.requestStatus', 'npd/request/status', false, { request_id: 'rq_1' }, (b, o) =>
    b.npd.requestStatus({ request_id: 'rq_1' }, o),
  ),
  row(
    'selfEmployed.onboardingCreate',
    'self_employed/onboarding/create',
    false,
    { return_url: 'https://payrun.example/x' },
    (b, o) => b.selfEmployed.onboardingCreate({ return_url: 'https://payrun.example/x' }, o),
  ),
  row(
    'taxes.ruVatLite',
    'alias/ru_vat_lite',
    false,
    { period_type: 'quarter', period_number: '2', period_year: '2025', amount: 150000, currency: 'RUB' },
    (b, o) =>
      b.taxes.ruVatLite(
        { period_type: 'quarter', period_number: '2', period_year: '2025', amount: 150000, currency: 'RUB' },
        o,
      ),
  ),
  row(
    'reports.accountBalance',
    'report/account_balance',
    false,
    { account_number: '40702810000000000001' },
    (b, o) => b.reports.accountBalance({ account_number: '40702810000000000001' }, o),
  ),
  row(
    'reports.accountStatement',
    'report/account_statement',
    false,
    { account_number: '40702810000000000001', date_from: '2025-05-14', date_to: '2025-05-14' },
    (b, o) =>
      b.reports.accountStatement(
        { account_number: '40702810000000000001', date_from: '2025-05-14', date_to: '2025-05-14' },
        o,
      ),
  ),
  row(
    'reports.walletBalance',
    'wallet/balance',
    false,
    { request_datetime: '2025-05-14T10:00:00+03:00' },
    (b, o) => b.reports.walletBalance({ request_datetime: '2025-05-14T10:00:00+03:00' }, o),
  ),
  {
    ...row(
      'wallets.createAnonymous',
      '/wallet/create/anonymous',
      false,
      { phone_number: '79001234567', email: 'a@example.com' },
      (b, o) => b.wallets.createAnonymous({ phone_number: '79001234567', email: 'a@example.com' }, o),
    ),
  },
  row('wallets.createSimplified', '/wallet/create/simplified', false, f.simplifiedWallet, (b, o) =>
    b.wallets.createSimplified(f.simplifiedWallet, o),
  ),
  row(
    'wallets.upToSimplified',
    '/wallet/w_77/identification/up_to_simplified',
    false,
    f.upToSimplified,
    (b, o) => b.wallets.upToSimplified('w_77', f.upToSimplified, o),
  ),
  {
    ...row('wallets.balance', '/wallet/w_77/balance', false, undefined, (b, o) =>
      b.wallets.balance('w_77', o),
    ),
    method: 'GET',
  },
  row('wallets.close', '/wallet/w_77/close', false, {}, (b, o) => b.wallets.close('w_77', o)),
];

/** The test's own statement of the v2 renaming (independent of src/bank/versioning.ts). */
function asV2(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k === 'payment_method' ? 'payout_details' : k] = v;
  return out;
}

const keys = makeKeyPair();
let server: BankServer;

beforeAll(async () => {
  server = await startBankServer(keys.publicKey);
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

describe.each([1, 2] as const)('API v%s', (version) => {
  let bank: BankClient;
  beforeAll(() => {
    bank = clientFor(server, keys, { apiVersion: version, submerchant: 'sub-9' });
  });
  afterAll(() => bank.close());

  test.each(ROWS.map((r) => [r.client, r] as const))('%s', async (_name, r) => {
    await r.call(bank, { idempotencyKey: 'key-0001' });
    expect(server.received).toHaveLength(1);
    const got = server.received[0]!;
    const wallet = r.path.startsWith('/');
    const v = version === 2 && r.hasV2 ? 2 : 1;
    expect(got.method).toBe(r.method);
    expect(got.url).toBe(wallet ? r.path : `/api/v${v}/${r.path}`);
    expect(got.signatureValid).toBe(true);
    expect(got.headers['x-partner-project']).toBe('proj-1');
    expect(got.headers['x-partner-submerchant']).toBe('sub-9');
    expect(got.headers['x-partner-idempotency-key']).toBe('key-0001');
    expect(got.headers['content-type']).toBe('application/json');
    if (r.method === 'GET') {
      expect(got.body.length).toBe(0);
    } else {
      expect(got.json).toEqual(v === 2 ? asV2(r.body) : r.body);
    }
    if (v === 2) expect(JSON.stringify(got.json)).not.toContain('"payment_method"');
  });
});

test('every client method is in the table exactly once', () => {
  const bank = clientFor(server, keys);
  const methods = Object.entries(bank)
    .filter(([k]) => k !== 'transport')
    .flatMap(([group, obj]) => Object.keys(obj as object).map((m) => `${group}.${m}`))
    .sort();
  expect(ROWS.map((r) => r.client).sort()).toEqual(methods);
  return bank.close();
});

test('without submerchant or idempotency key those headers are absent', async () => {
  const bank = clientFor(server, keys);
  await bank.sessions.status({ session_id: 'ps_1' });
  await bank.close();
  expect(server.received[0]!.headers['x-partner-submerchant']).toBeUndefined();
  expect(server.received[0]!.headers['x-partner-idempotency-key']).toBeUndefined();
  expect(server.received[0]!.signatureValid).toBe(true);
});

test('a base URL with a path prefix keeps the prefix', async () => {
  const bank = clientFor(server, keys, { baseUrl: `${server.url}/partner/` });
  await bank.sessions.status({ session_id: 'ps_1' });
  await bank.close();
  expect(server.received[0]!.url).toBe('/partner/api/v1/session/status');
});
