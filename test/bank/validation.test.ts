import { BankRequestValidationError, isRetryable, type BankClient } from '../../src/bank';
import { clientFor, makeKeyPair, startBankServer, type BankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/** Every rule of the spec rejects the request before a single byte leaves the process. */

const keys = makeKeyPair();
let server: BankServer;
let bank: BankClient;

beforeAll(async () => {
  server = await startBankServer(keys.publicKey);
  bank = clientFor(server, keys);
});
afterAll(async () => {
  await bank.close();
  await server.close();
});

const years = (n: number) => {
  const d = new Date();
  return `${String(d.getUTCDate()).padStart(2, '0')}.${String(d.getUTCMonth() + 1).padStart(2, '0')}.${d.getUTCFullYear() - n}`;
};
const fpsWith = (description: string) => ({
  ...f.fpsPayout,
  bank_account: {
    ...f.fpsPayout.bank_account,
    faster_payment_system: { ...f.fpsPayout.bank_account.faster_payment_system, description },
  },
});
const payout = (amount: unknown) => ({
  payment_method: f.cardPayout,
  amount_details: { amount, currency: 'rub' },
});
const statement = (date_from: string, date_to: string, account_number = '40702810000000000001') => ({
  account_number,
  date_from,
  date_to,
});
const sync = (bank_card: Record<string, string>) => ({
  payment_details: { type: 'card', card: { type: 'bank_card', bank_card } },
  amount_details: f.amount,
  customer: f.customer,
  payment_options: { return_url: 'https://shop.example/back' },
});
const card = f.cardPayment.card.bank_card;

// Deliberately untyped calls: these are the mistakes TypeScript would not always catch (numbers
// from CSV, strings of the wrong length), plus a few it would, to prove the run-time check holds.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Case = [string, (b: any) => Promise<unknown>, string, string];

const CASES: Case[] = [
  [
    'amount zero',
    (b) => b.sessions.initPayout(payout(0)),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'amount negative',
    (b) => b.sessions.initPayout(payout(-5)),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'amount fractional',
    (b) => b.sessions.initPayout(payout(100.5)),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'amount unsafe',
    (b) => b.sessions.initPayout(payout(2 ** 53)),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'amount as string',
    (b) => b.sessions.initPayout(payout('100')),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'currency not a code',
    (b) =>
      b.sessions.initPayout({
        payment_method: f.cardPayout,
        amount_details: { amount: 1, currency: 'rubles' },
      }),
    'amount_details.currency',
    'iso4217_code',
  ],
  [
    'FPS description 141 chars',
    (b) => b.sessions.initPayout({ payment_method: fpsWith('x'.repeat(141)), amount_details: f.amount }),
    'payment_method.bank_account.faster_payment_system.description',
    'max_length_140',
  ],
  [
    'idempotency key 3 chars',
    (b) => b.sessions.initPayout(payout(100), { idempotencyKey: 'abc' }),
    'X-PARTNER-IDEMPOTENCY-KEY',
    'length_4_64',
  ],
  [
    'idempotency key 65 chars',
    (b) => b.sessions.initPayout(payout(100), { idempotencyKey: 'k'.repeat(65) }),
    'X-PARTNER-IDEMPOTENCY-KEY',
    'length_4_64',
  ],
  [
    'idempotency key with newline',
    (b) => b.sessions.initPayout(payout(100), { idempotencyKey: 'ab\ncd' }),
    'X-PARTNER-IDEMPOTENCY-KEY',
    'visible_ascii',
  ],
  [
    'statement date_from ≠ date_to',
    (b) => b.reports.accountStatement(statement('2025-05-13', '2025-05-14')),
    'date_to',
    'date_from_must_equal_date_to',
  ],
  [
    'statement date_from > date_to',
    (b) => b.reports.accountStatement(statement('2025-05-15', '2025-05-14')),
    'date_to',
    'date_from_after_date_to',
  ],
  [
    'statement invalid date',
    (b) => b.reports.accountStatement(statement('2025-02-30', '2025-02-30')),
    'date_from',
    'date_yyyy_mm_dd',
  ],
  [
    'statement account 19 digits',
    (b) => b.reports.accountStatement(statement('2025-05-14', '2025-05-14', '4070281000000000000')),
    'account_number',
    'digits_20',
  ],
  [
    'balance account prefix',
    (b) => b.reports.accountBalance({ account_number: '40817810000000000001' }),
    'account_number',
    'account_prefix_40702_40703_40802_40807_40701',
  ],
  [
    'balance account length',
    (b) => b.reports.accountBalance({ account_number: '407028100' }),
    'account_number',
    'digits_20',
  ],
  [
    'npd phone with plus',
    (b) =>
      b.npd.checkPersonalInfo({
        first_name: 'И',
        second_name: 'И',
        patronymic: 'И',
        tax_reference: '500100732259',
        phone: '+79001234567',
      }),
    'phone',
    'phone_11_digits_starting_with_7',
  ],
  [
    'npd phone starting with 8',
    (b) =>
      b.npd.checkPersonalInfo({
        first_name: 'И',
        second_name: 'И',
        patronymic: 'И',
        tax_reference: '500100732259',
        phone: '89001234567',
      }),
    'phone',
    'phone_11_digits_starting_with_7',
  ],
  [
    'npd blank second_name',
    (b) =>
      b.npd.checkPersonalInfo({
        first_name: 'И',
        second_name: '  ',
        patronymic: 'И',
        tax_reference: '500100732259',
        phone: '79001234567',
      }),
    'second_name',
    'not_blank',
  ],
  [
    'wallet phone 10 digits',
    (b) => b.wallets.createAnonymous({ phone_number: '7900123456', email: 'a@example.com' }),
    'phone_number',
    'phone_11_digits_starting_with_7',
  ],
  [
    'wallet email invalid',
    (b) => b.wallets.createAnonymous({ phone_number: '79001234567', email: 'not-an-email' }),
    'email',
    'email',
  ],
  [
    'customer reference 129 chars',
    (b) =>
      b.sessions.initPayment({
        payment_details: f.cardPayment,
        amount_details: f.amount,
        customer: { reference: 'r'.repeat(129) },
      }),
    'customer.reference',
    'max_length_128',
  ],
  [
    'customer reference blank',
    (b) =>
      b.sessions.initPayment({
        payment_details: f.cardPayment,
        amount_details: f.amount,
        customer: { reference: '   ' },
      }),
    'customer.reference',
    'not_blank',
  ],
  [
    'customer missing on payment',
    (b) => b.sessions.initPayment({ payment_details: f.cardPayment, amount_details: f.amount }),
    'customer',
    'required',
  ],
  [
    'capture amount 0',
    (b) => b.sessions.capture({ session_id: 'ps_1', amount_details: { amount: 0, currency: 'rub' } }),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  [
    'refund amount negative',
    (b) => b.sessions.refund({ session_id: 'ps_1', amount_details: { amount: -1, currency: 'rub' } }),
    'amount_details.amount',
    'positive_integer_kopecks',
  ],
  ['blank session_id', (b) => b.sessions.confirm({ session_id: '' }), 'session_id', 'not_blank'],
  [
    'npd tax_reference 10 digits',
    (b) => b.npd.check({ tax_reference: '7707083893' }),
    'tax_reference',
    'digits_12',
  ],
  [
    'npd tax_reference with a wrong check digit',
    (b) => b.npd.check({ tax_reference: '500100732260' }),
    'tax_reference',
    'inn_check_digits',
  ],
  [
    'a 12-digit card number (the spec states none; payrun pays 13–19, decision D17)',
    (b) =>
      b.sessions.initPayout({
        payment_method: { type: 'card', card: { type: 'bank_card', bank_card: { number: '220000000009' } } },
        amount_details: { amount: 100, currency: 'rub' },
      }),
    'payment_method.card.bank_card.number',
    'card_number_13_19_digits_luhn',
  ],
  [
    'a card number with a wrong Luhn check digit',
    (b) =>
      b.sessions.initPayout({
        payment_method: {
          type: 'card',
          card: { type: 'bank_card', bank_card: { number: '4111111111111112' } },
        },
        amount_details: { amount: 100, currency: 'rub' },
      }),
    'payment_method.card.bank_card.number',
    'card_number_13_19_digits_luhn',
  ],
  [
    'npd tax_reference letters',
    (b) => b.npd.accountStatus({ tax_reference: '50010073225X' }),
    'tax_reference',
    'digits_12',
  ],
  [
    'fiscalization tax_reference',
    (b) =>
      b.sessions.initPayoutFiscalization({
        ...payout(100),
        fiscalization_details: { professional_income_taxpayer: { tax_reference: '123' } },
      }),
    'fiscalization_details.professional_income_taxpayer.tax_reference',
    'digits_12',
  ],
  [
    'fiscalization missing on init',
    (b) => b.sessions.initPayoutFiscalization(payout(100)),
    'fiscalization_details',
    'required',
  ],
  [
    'alias month 13',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'month',
        period_number: '13',
        period_year: '2025',
        amount: 1,
        currency: 'rub',
      }),
    'period_number',
    'range_1_12_for_month',
  ],
  [
    'alias month 0',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'month',
        period_number: '0',
        period_year: '2025',
        amount: 1,
        currency: 'rub',
      }),
    'period_number',
    'range_1_12_for_month',
  ],
  [
    'alias quarter 5',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'quarter',
        period_number: '5',
        period_year: '2025',
        amount: 1,
        currency: 'rub',
      }),
    'period_number',
    'range_1_4_for_quarter',
  ],
  [
    'alias period_type week',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'week',
        period_number: '1',
        period_year: '2025',
        amount: 1,
        currency: 'rub',
      }),
    'period_type',
    'month_or_quarter',
  ],
  [
    'alias currency usd',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'month',
        period_number: '1',
        period_year: '2025',
        amount: 1,
        currency: 'usd',
      }),
    'currency',
    'currency_rub',
  ],
  [
    'alias year 25',
    (b) =>
      b.taxes.ruVatLite({
        period_type: 'month',
        period_number: '1',
        period_year: '25',
        amount: 1,
        currency: 'rub',
      }),
    'period_year',
    'year_yyyy',
  ],
  [
    'wallet birthday format',
    (b) => b.wallets.createSimplified({ ...f.simplifiedWallet, birthday: '1990-03-15' }),
    'birthday',
    'date_dd_mm_yyyy',
  ],
  [
    'wallet birthday under 18',
    (b) => b.wallets.createSimplified({ ...f.simplifiedWallet, birthday: years(17) }),
    'birthday',
    'age_over_18',
  ],
  [
    'up_to_simplified birthday under 18',
    (b) =>
      b.wallets.upToSimplified('w_1', {
        ...f.upToSimplified,
        personal_info: { ...f.upToSimplified.personal_info, birthday: years(10) },
      }),
    'personal_info.birthday',
    'age_over_18',
  ],
  [
    'passport series 3 digits',
    (b) =>
      b.wallets.createSimplified({
        ...f.simplifiedWallet,
        documents: [{ ...f.simplifiedWallet.documents[0], series: '451' }],
      }),
    'documents.0.series',
    'digits_4',
  ],
  [
    'passport number 7 digits',
    (b) =>
      b.wallets.upToSimplified('w_1', {
        ...f.upToSimplified,
        passport: { ...f.passport, number: '1234567' },
      }),
    'passport.number',
    'digits_6',
  ],
  [
    'passport type',
    (b) =>
      b.wallets.createSimplified({
        ...f.simplifiedWallet,
        documents: [{ ...f.simplifiedWallet.documents[0], type: 'PASSPORT' }],
      }),
    'documents.0.type',
    'must_be_PASSPORT_RF',
  ],
  [
    'passport issuer_date',
    (b) =>
      b.wallets.createSimplified({
        ...f.simplifiedWallet,
        documents: [{ ...f.simplifiedWallet.documents[0], issuer_date: '2015-02-01' }],
      }),
    'documents.0.issuer_date',
    'date_dd_mm_yyyy',
  ],
  [
    'wallet inn 10 digits',
    (b) => b.wallets.createSimplified({ ...f.simplifiedWallet, inn: '7707083893' }),
    'inn',
    'digits_12',
  ],
  [
    'wallet citizenship alpha-3',
    (b) => b.wallets.createSimplified({ ...f.simplifiedWallet, citizenship: 'RUS' }),
    'citizenship',
    'iso3166_alpha2',
  ],
  [
    'wallet residence_type',
    (b) => b.wallets.createSimplified({ ...f.simplifiedWallet, residence_type: 'FL_NONRESIDENT' }),
    'residence_type',
    'must_be_FL_RESIDENT',
  ],
  ['wallet id with slash', (b) => b.wallets.balance('../admin'), 'wallet_id', 'wallet_id_characters'],
  [
    'return_url not a URL',
    (b) => b.sessions.initPaymentSync({ ...sync(card), payment_options: { return_url: 'back-to-shop' } }),
    'payment_options.return_url',
    'url',
  ],
  [
    'return_url javascript:',
    (b) => b.selfEmployed.onboardingCreate({ return_url: 'javascript:alert(1)' }),
    'return_url',
    'url',
  ],
  [
    'sync expiration month 13',
    (b) => b.sessions.initPaymentSync(sync({ ...card, expiration_month: '13' })),
    'payment_details.card.bank_card.expiration_month',
    'month_mm',
  ],
  [
    'sync expiration year 2029',
    (b) => b.sessions.initPaymentSync(sync({ ...card, expiration_year: '2029' })),
    'payment_details.card.bank_card.expiration_year',
    'year_yy',
  ],
  [
    'sync missing security code',
    (b) =>
      b.sessions.initPaymentSync(
        sync({ number: card.number, expiration_month: '12', expiration_year: '29' }),
      ),
    'payment_details.card.bank_card.security_code',
    'required',
  ],
  [
    'sync currency usd',
    (b) => b.sessions.initPaymentSync({ ...sync(card), amount_details: { amount: 100, currency: 'usd' } }),
    'amount_details.currency',
    'currency_rub',
  ],
  [
    'sync encrypted card',
    (b) =>
      b.sessions.initPaymentSync({
        ...sync(card),
        payment_details: {
          type: 'card',
          card: { type: 'encrypted_card', encrypted_card: { number_hash: 'h' } },
        },
      }),
    'payment_details.card.type',
    'one_of_bank_card',
  ],
  [
    'unknown method block type',
    (b) => b.sessions.initPayout({ payment_method: { type: 'cash' }, amount_details: f.amount }),
    'payment_method.type',
    'one_of_card|bank_account|faster_payment_system|tax',
  ],
  [
    'ru account 19 digits',
    (b) =>
      b.sessions.initPayout({
        payment_method: {
          ...f.ruAccountPayout,
          bank_account: {
            system_type: 'ru',
            ru: { ...f.ruAccountPayout.bank_account.ru, account: '4081781009991000431' },
          },
        },
        amount_details: f.amount,
      }),
    'payment_method.bank_account.ru.account',
    'digits_20',
  ],
  [
    'nominal payout without beneficiary_id',
    (b) =>
      b.nominal.initPayout({
        payment_method: f.ruAccountPayout,
        amount_details: f.amount,
        participant_details: { sender: { account: '40702810000000000001' }, recipient: {} },
      }),
    'participant_details.recipient.beneficiary_id',
    'required',
  ],
  [
    'multi rate with 5 decimals',
    (b) =>
      b.multi.init({
        ...f.multiInit,
        amounts: { ...f.multiInit.amounts, rate: { ...f.multiInit.amounts.rate, rate: '9.12345' } },
      }),
    'amounts.rate.rate',
    'decimal_max_4_places',
  ],
  [
    'multi source currency',
    (b) =>
      b.multi.init({
        ...f.multiInit,
        amounts: { ...f.multiInit.amounts, source: { amount: 1, currency: 'usd' } },
      }),
    'amounts.source.currency',
    'currency_rub',
  ],
  [
    'multi no provider_tx_id',
    (b) => b.multi.init({ ...f.multiInit, payment_metadata: {} }),
    'payment_metadata.provider_tx_id',
    'required',
  ],
  [
    'token/info sub-object missing',
    (b) => b.tokens.info({ type: 'public_token' }),
    'public_token',
    'required',
  ],
  [
    'recurrent/disable blank token',
    (b) => b.tokens.disableRecurrent({ recurrent: { token: '' } }),
    'recurrent.token',
    'not_blank',
  ],
  [
    'wallet/balance datetime',
    (b) => b.reports.walletBalance({ request_datetime: '14.05.2025 10:00' }),
    'request_datetime',
    'iso8601_datetime',
  ],
  [
    'FPS verification without last_name',
    (b) =>
      b.fps.customerVerification({
        payment_method: {
          type: 'bank_account',
          bank_account: {
            system_type: 'faster_payment_system_verification',
            faster_payment_system_verification: { phone: '79001234567', bank_id: 'b' },
          },
        },
        participant_details: { recipient: { first_name: 'Иван' } },
      }),
    'participant_details.recipient.last_name',
    'required',
  ],
  [
    'contact email invalid',
    (b) =>
      b.sessions.initPayment({
        payment_details: f.cardPayment,
        amount_details: f.amount,
        customer: { reference: 'u', contacts: [{ email: 'x@' }] },
      }),
    'customer.contacts.0.email',
    'email',
  ],
  [
    'service quantity 0',
    (b) =>
      b.sessions.startPayoutFiscalization({
        session_id: 'ps_1',
        fiscalization_details: {
          professional_income_taxpayer: {
            ...f.fiscalization.professional_income_taxpayer,
            services: [{ name: 'x', amount_details: f.amount, quantity: 0 }],
          },
        },
      }),
    'fiscalization_details.professional_income_taxpayer.services.0.quantity',
    'positive_integer',
  ],
];

test.each(CASES)('%s → rejected before sending', async (_name, call, field, rule) => {
  const before = server.received.length;
  const err = await call(bank).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BankRequestValidationError);
  expect(err).toMatchObject({ field, rule, retryable: false, code: 'request_validation' });
  expect(isRetryable(err)).toBe(false);
  expect(server.received.length).toBe(before);
});

test('the server really receives requests that pass (the zero-count above means something)', async () => {
  const before = server.received.length;
  await bank.sessions.initPayout({
    payment_method: f.cardPayout,
    amount_details: { amount: 1, currency: 'rub' },
  });
  await bank.wallets.createSimplified({ ...f.simplifiedWallet, birthday: years(18) });
  await bank.taxes.ruVatLite({
    period_type: 'month',
    period_number: '12',
    period_year: '2025',
    amount: 1,
    currency: 'RUB',
  });
  expect(server.received.length).toBe(before + 3);
});

test('a validation error names the field and rule but never echoes the value', async () => {
  const err = await bank.sessions
    .initPayout({
      payment_method: { ...f.cardPayout, card: { type: 'bank_card', bank_card: { number: '4111-1111' } } },
      amount_details: f.amount,
    })
    .catch((e: unknown) => e as BankRequestValidationError);
  expect(err).toMatchObject({
    field: 'payment_method.card.bank_card.number',
    rule: 'card_number_13_19_digits_luhn',
  });
  expect((err as Error).message).not.toContain('4111');
});

describe('every field the spec requires of a payout method block', () => {
  const without = (block: Record<string, unknown>, key: string) => {
    const { [key]: _dropped, ...rest } = block;
    return rest;
  };
  const ru = (fields: Record<string, unknown>): any => ({
    type: 'bank_account',
    bank_account: { system_type: 'ru', ru: fields },
  });
  const fps = (fields: Record<string, unknown>): any => ({
    type: 'bank_account',
    bank_account: { system_type: 'faster_payment_system', faster_payment_system: fields },
  });
  const ruFields = f.ruAccountPayout.bank_account.ru;
  const fpsFields = f.fpsPayout.bank_account.faster_payment_system;
  const ruPath = 'payment_method.bank_account.ru';
  const fpsPath = 'payment_method.bank_account.faster_payment_system';
  const blocks: [string, unknown, string, string][] = [
    [
      'card without number',
      { type: 'card', card: { type: 'bank_card', bank_card: {} } },
      'payment_method.card.bank_card.number',
      'required',
    ],
    ...(['bik', 'account', 'full_name', 'description'] as const).map(
      (k): [string, unknown, string, string] => [
        `ru without ${k}`,
        ru(without(ruFields, k)),
        `${ruPath}.${k}`,
        'required',
      ],
    ),
    ['ru blank full_name', ru({ ...ruFields, full_name: '  ' }), `${ruPath}.full_name`, 'not_blank'],
    ['ru blank description', ru({ ...ruFields, description: '' }), `${ruPath}.description`, 'not_blank'],
    ...(['phone', 'bank_id', 'description'] as const).map((k): [string, unknown, string, string] => [
      `fps without ${k}`,
      fps(without(fpsFields, k)),
      `${fpsPath}.${k}`,
      'required',
    ]),
    ['fps blank description', fps({ ...fpsFields, description: ' ' }), `${fpsPath}.description`, 'not_blank'],
    // 140 characters as a person counts them: 141 code points is one too many even if each is one UTF-16 unit…
    [
      'fps description of 141 letters',
      fps({ ...fpsFields, description: 'я'.repeat(141) }),
      `${fpsPath}.description`,
      'max_length_140',
    ],
  ];
  const methods: [string, (b: BankClient, params: any) => Promise<unknown>][] = [
    ['init/payout', (b, p) => b.sessions.initPayout(p)],
    [
      'init/payout/fiscalization',
      (b, p) => b.sessions.initPayoutFiscalization({ ...p, fiscalization_details: f.fiscalization }),
    ],
    ['start/payout', (b, p) => b.sessions.startPayout({ session_id: 'ps_1', ...p })],
    [
      'start/payout/fiscalization',
      (b, p) => b.sessions.startPayoutFiscalization({ session_id: 'ps_1', ...p }),
    ],
  ];
  const cases = methods.flatMap(([method, call]) =>
    blocks.map(([name, block, field, rule]) => [`${method}: ${name}`, call, block, field, rule] as const),
  );

  test.each(cases)('%s → refused before sending', async (_name, call, block, field, rule) => {
    const before = server.received.length;
    const err = await call(bank, { payment_method: block, amount_details: f.amount }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BankRequestValidationError);
    expect(err).toMatchObject({ field, rule });
    expect(server.received.length).toBe(before);
  });

  test('…and 140 code points pass even when some take two UTF-16 units', async () => {
    const before = server.received.length;
    await bank.sessions.initPayout({
      payment_method: fps({ ...fpsFields, description: '😀'.repeat(140) }),
      amount_details: f.amount,
    });
    await bank.sessions.initPayout({ payment_method: f.ruAccountPayout, amount_details: f.amount });
    expect(server.received.length).toBe(before + 2);
  });

  test('a v2 client refuses the same, naming the field in the caller model (v1 names)', async () => {
    const v2 = clientFor(server, keys, { apiVersion: 2 });
    try {
      const before = server.received.length;
      const err = await v2.nominal
        .initPayout({
          payment_method: ru(without(ruFields, 'full_name')),
          amount_details: f.amount,
          participant_details: {
            sender: { account: '40702810000000000001' },
            recipient: { beneficiary_id: 'b-1' },
          },
        })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ field: `${ruPath}.full_name`, rule: 'required' });
      expect(server.received.length).toBe(before);
      await v2.nominal.initPayout({
        payment_method: f.ruAccountPayout,
        amount_details: f.amount,
        participant_details: {
          sender: { account: '40702810000000000001' },
          recipient: { beneficiary_id: 'b-1' },
        },
      });
      expect(server.received.at(-1)!.url).toBe('/api/v2/session/init/payout/nominal');
      expect((server.received.at(-1)!.json as any).payout_details.bank_account.ru).toEqual(ruFields);
    } finally {
      await v2.close();
    }
  });

  test('the payment side (payment_details) keeps the spec’s optional fields optional', async () => {
    const before = server.received.length;
    await bank.sessions.create({ payment_details: ru(without(ruFields, 'full_name')) } as any);
    expect(server.received.length).toBe(before + 1);
  });
});
