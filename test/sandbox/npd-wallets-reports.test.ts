import { TEST_CARDS, TEST_INNS, TEST_PHONES, type RunningSandbox } from '../../src/sandbox';
import { isCardNumber as luhnValid, isValidInn12 as inn12Valid } from '../../src/domain';
import * as TV from '../../src/sandbox/test-values';
import { card, payCard, rub, type SignedClient, startTestSandbox } from './signed-client';
import { inn12 } from '../harness/csv-rows';

const T = {
  readyToConfirmMs: 60_000,
  paymentFinishedMs: 60_000,
  npdPendingMs: 60_000,
  verificationMs: 60_000,
};
let sb: RunningSandbox;
let client: SignedClient;
beforeEach(async () => {
  ({ sb, client } = await startTestSandbox({ timings: T, clock: { startAt: '2026-11-22T10:00:00Z' } }));
});
afterEach(() => sb.close());

// An independent check of the published values (not the sandbox's own validator).
/** The test helpers' own formulation of the INN check digits, apart from src/domain's. */
const innOk = (inn: string): boolean => inn12(inn.slice(0, 10)) === inn;
test('published test values are valid: Luhn cards, INN-12 check digits', () => {
  for (const n of Object.values(TV.TEST_CARDS)) expect([n, luhnValid(n)]).toEqual([n, true]);
  for (const n of Object.values(TV.TEST_INNS)) expect([n, innOk(n), inn12Valid(n)]).toEqual([n, true, true]);
  expect(inn12Valid('770700000191')).toBe(false);
});

describe('npd', () => {
  const status = async (id: string) => (await client.v1('npd/request/status', { request_id: id })).body;
  test.each([
    [TEST_INNS.SELF_EMPLOYED_LINKED, true, true],
    ['500100732259', true, true],
    [TEST_INNS.NOT_SELF_EMPLOYED, false, false],
    [TEST_INNS.SELF_EMPLOYED_NOT_LINKED, true, false],
  ])(
    'check %s: pending first, then is_professional_income_taxpayer=%s is_linked=%s',
    async (inn, tp, linked) => {
      const r = await client.v1('npd/check', { tax_reference: inn });
      expect(r.body).toEqual({ status: 'ok', request_id: expect.any(String) });
      expect(await status(r.body.request_id)).toMatchObject({ status: 'pending' });
      await sb.advance(T.npdPendingMs);
      expect(await status(r.body.request_id)).toMatchObject({
        status: 'ok',
        is_professional_income_taxpayer: tp,
        is_linked: linked,
      });
    },
  );

  test('stuck pending; once per 30 s per tax number; invalid INN', async () => {
    const r = await client.v1('npd/check', { tax_reference: TEST_INNS.NPD_PENDING_FOREVER });
    await sb.advance(86400_000);
    expect((await status(r.body.request_id)).status).toBe('pending');
    await client.v1('npd/check', { tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED });
    const again = await client.v1('npd/check', { tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED });
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('too_many_requests');
    await sb.advance(30_000);
    expect((await client.v1('npd/check', { tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED })).status).toBe(
      200,
    );
    const bad = await client.v1('npd/check', { tax_reference: '770700000191' });
    expect(bad.body.error).toEqual({
      code: 'invalid_request',
      description: 'tax_reference: invalid check digits',
    });
  });

  test('account_status and check_personal_info', async () => {
    const a = await client.v1('npd/taxpayer/account_status', { tax_reference: TEST_INNS.WITH_DEBT });
    const person = {
      first_name: 'Ivan',
      second_name: 'Petrov',
      patronymic: 'Ivanovich',
      phone: '79001234567',
    };
    const p = await client.v1('npd/taxpayer/check_personal_info', {
      ...person,
      tax_reference: TEST_INNS.PERSONAL_INFO_MISMATCH,
    });
    const ok = await client.v1('npd/taxpayer/check_personal_info', {
      ...person,
      tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED,
    });
    const badPhone = await client.v1('npd/taxpayer/check_personal_info', {
      ...person,
      phone: '89001234567',
      tax_reference: TEST_INNS.SELF_EMPLOYED_LINKED,
    });
    expect(badPhone.body.error.description).toBe('phone: must be 11 digits starting with 7');
    await sb.advance(T.npdPendingMs);
    expect(await status(a.body.request_id)).toMatchObject({
      status: 'ok',
      unpaid_amount: '1500.00',
      debt_amount: '500.00',
    });
    expect(await status(p.body.request_id)).toMatchObject({
      success: false,
      violations: ['second_name', 'phone'],
    });
    expect(await status(ok.body.request_id)).toMatchObject({ success: true, violations: [] });
  });
});

describe('fps', () => {
  test('banks over GET and POST; customer verification found / not found, nothing charged', async () => {
    const g = await client.v1('fps/banks', undefined, { method: 'GET' });
    const p = await client.v1('fps/banks', {});
    expect(g.body.banks.length).toBeGreaterThan(0);
    expect(p.body.banks).toEqual(g.body.banks);
    const verify = (phone: string) =>
      client.v2('fps/customer_verification', {
        payout_details: {
          type: 'bank_account',
          bank_account: {
            system_type: 'faster_payment_system_verification',
            faster_payment_system_verification: { phone, bank_id: g.body.banks[0].id },
          },
        },
        participant_details: { recipient: { first_name: 'Ivan', last_name: 'Petrov', middle_name: 'I' } },
      });
    const a = await verify(TEST_PHONES.FOUND);
    const b = await verify(TEST_PHONES.FPS_NOT_FOUND);
    await sb.advance(T.verificationMs);
    expect((await client.v2('session/status', { session_id: a.body.session.id })).body.session.status).toBe(
      'accepted',
    );
    expect((await client.v2('session/status', { session_id: b.body.session.id })).body.session.status).toBe(
      'cancelled',
    );
    expect(sb.ledger()).toHaveLength(0);
  });
});

describe('reports', () => {
  test('balance prefixes, statement rules, statement reflects moved money', async () => {
    expect(
      (await client.v1('report/account_balance', { account_number: '30101810400000000225' })).body.error
        .description,
    ).toContain('must start with 40702');
    expect(
      (await client.v1('report/account_balance', { account_number: '40702810999999999999' })).body.error.code,
    ).toBe('invalid_request');
    const r = await client.v1('session/init/payout', {
      payment_method: card(TEST_CARDS.SUCCESS),
      amount_details: rub(12_345),
    });
    await sb.advance(T.readyToConfirmMs);
    await client.v1('session/confirm', { session_id: r.body.session.id });
    await sb.advance(T.paymentFinishedMs);
    const st = (d1: string, d2: string) =>
      client.v1('report/account_statement', {
        account_number: '40702810700000000002',
        date_from: d1,
        date_to: d2,
      });
    expect((await st('2026-11-22', '2026-11-23')).body.error.description).toContain('must equal date_from');
    expect((await st('2026-11-23', '2026-11-22')).body.error.description).toContain(
      'date_from: must not be greater',
    );
    expect((await st('22.11.2026', '2026-11-22')).body.error.description).toBe('date_from: invalid value');
    const s = (await st('2026-11-22', '2026-11-22')).body.method.account_statement;
    expect(s.transactions).toEqual([
      expect.objectContaining({
        amount: 12_345,
        type: 'debet',
        session_id: r.body.session.id,
        currency: 'RUB',
      }),
    ]);
    expect(s.total_balance.closing).toBe(s.total_balance.opening - 12_345);
    const bal = await client.v1('report/account_balance', { account_number: '40702810700000000002' });
    expect(bal.body.balance.current_balance).toBe(s.total_balance.closing);
  });
});

describe('wallets', () => {
  const simplified = (over: Record<string, unknown> = {}) => ({
    residence_type: 'FL_RESIDENT',
    first_name: 'Anna',
    last_name: 'Ivanova',
    birthday: '01.02.1990',
    birthplace: 'Moscow',
    citizenship: 'RU',
    inn: TEST_INNS.SELF_EMPLOYED_LINKED,
    phone_number: '79005550001',
    email: 'anna@example.com',
    documents: [
      {
        type: 'PASSPORT_RF',
        series: '4510',
        number: '123456',
        issuer: 'OVD',
        issuer_date: '01.02.2010',
        issuer_code: '770-001',
      },
    ],
    ...over,
  });
  test('create, one per person, over 18, top-up and withdrawal move the balance, close only at zero', async () => {
    const young = await client.call('/wallet/create/simplified', simplified({ birthday: '01.01.2010' }));
    expect(young.body).toEqual({
      status: 'error',
      data: null,
      error: {
        code: 'validation_error',
        description: expect.stringContaining('birthday: the person must be over 18'),
      },
    });
    const w = await client.call('/wallet/create/simplified', simplified());
    const id = w.body.data.wallet_id as string;
    expect(w.body.data.request_id).toEqual(expect.any(String));
    expect(
      (await client.call('/wallet/create/anonymous', { phone_number: '79005550001', email: 'x@example.com' }))
        .body.error.code,
    ).toBe('wallet_already_exists');
    const top = await client.v1('session/init/payment', {
      payment_details: payCard(TEST_CARDS.SUCCESS),
      amount_details: rub(5_000),
      customer: { reference: 'anna' },
      participant_details: {
        sender: { full_name: 'Anna Ivanova' },
        recipient: { full_name: 'Anna Ivanova', wallet_id: id },
      },
    });
    await sb.advance(T.readyToConfirmMs);
    await client.v1('session/confirm', { session_id: top.body.session.id });
    await sb.advance(T.paymentFinishedMs);
    const bal = () => client.call(`/wallet/${id}/balance`, undefined, { method: 'GET' });
    expect((await bal()).body.data).toEqual({ wallet_id: id, balance: 5_000, currency: 'rub' });
    expect((await client.call(`/wallet/${id}/close`, undefined, { rawBody: '' })).body.error.code).toBe(
      'wallet_not_nullable_balance_error',
    );
    const out = await client.v1('session/init/payout', {
      payment_method: card(TEST_CARDS.SUCCESS),
      amount_details: rub(5_000),
      participant_details: {
        sender: { full_name: 'Anna Ivanova', wallet_id: id },
        recipient: { full_name: 'Anna Ivanova' },
      },
    });
    await sb.advance(T.readyToConfirmMs);
    await client.v1('session/confirm', { session_id: out.body.session.id });
    await sb.advance(T.paymentFinishedMs);
    expect((await bal()).body.data.balance).toBe(0);
    expect(sb.ledger().map((e) => e.kind)).toEqual(['topup', 'withdrawal']);
    expect((await client.call(`/wallet/${id}/close`, undefined, { rawBody: '' })).body.status).toBe('ok');
    expect((await bal()).body.error.code).toBe('wallet_closed_found');
    expect(
      (await client.call('/wallet/w9999999999/balance', undefined, { method: 'GET' })).body.error.code,
    ).toBe('wallet_not_found');
    expect(
      (
        await client.call(
          '/wallet/create/anonymous',
          { phone_number: '7900', email: 'x' },
          { project: 'nope' },
        )
      ).body.error.code,
    ).toBe('partner_project_not_found');
  });
});
