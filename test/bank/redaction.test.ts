import { createLogger } from '../../src/logger';
import { clientFor, makeKeyPair, startBankServer } from './helpers/bank-server';
import * as f from './helpers/fixtures';

/**
 * Card and account numbers, security codes, phones, passport data, tax numbers, birth data and
 * keys never reach a log line: logged through the real logger into memory, none of them appear.
 */

const keys = makeKeyPair();

function memoryLogger(level = 'info') {
  const lines: string[] = [];
  const logger = createLogger('bank', { write: (s: string) => void lines.push(s) });
  logger.level = level;
  /** Everything logged, without pino's own time/pid/hostname (digits there could collide). */
  const text = () =>
    lines
      .map((l) => {
        const { time: _t, pid: _p, hostname: _h, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(rest);
      })
      .join('\n');
  return { logger, lines, text };
}

/** Every sensitive value a bank request or response can carry, each distinctive. */
const SECRETS = {
  cardNumber: '4111111111111111',
  expMonth: '11',
  expYear: '31',
  cvc: '739',
  numberHash: 'hash-of-card-Zq81',
  bankAccount: '40817810099910004312',
  statementAccount: '40702810000000000077',
  maskedAccount: '408178******4312',
  phoneFps: '79001234567',
  phoneWallet: '79007654321',
  phoneShort: '9007654321',
  passportSeries: '4510',
  passportNumber: '123456',
  passportIssuer: 'ОВД Тверского района Москвы',
  passportIssuedOn: '01.02.2015',
  passportCode: '770-001',
  idNumber: 'AB-7701-Q',
  birthday: '15.03.1990',
  dateOfBirth: '1990-03-15',
  birthplace: 'Нижний Новгород',
  inn: '500100732259',
  taxReference: '500100732259',
  payerTaxNumber: '7707083893',
  recurrentToken: 'rt_secret_token_value',
  privateKey: keys.privatePem,
  signature: 'c2lnbmF0dXJlLWJhc2U2NA==',
};

const request = {
  session_id: 'ps_visible_1',
  payment_method: {
    type: 'card',
    card: {
      type: 'bank_card',
      bank_card: {
        number: SECRETS.cardNumber,
        expiration_month: SECRETS.expMonth,
        expiration_year: SECRETS.expYear,
        security_code: SECRETS.cvc,
      },
      encrypted_card: { number_hash: SECRETS.numberHash },
    },
    bank_account: {
      ru: { bik: '044525225', account: SECRETS.bankAccount, inn: SECRETS.inn },
      faster_payment_system: { phone: SECRETS.phoneFps, bank_id: '100000000111' },
    },
  },
  participant_details: {
    sender: { account: SECRETS.statementAccount, full_name: 'ООО Ромашка' },
    recipient: {
      date_of_birth: SECRETS.dateOfBirth,
      identity_document: { id_type: 'passport', id_number: SECRETS.idNumber },
      contacts: { phone: { full_number: SECRETS.phoneWallet, short_number: SECRETS.phoneShort } },
    },
  },
  fiscalization_details: {
    professional_income_taxpayer: {
      tax_reference: SECRETS.taxReference,
      payer_tax_number: SECRETS.payerTaxNumber,
    },
  },
  wallet: {
    phone_number: SECRETS.phoneWallet,
    birthday: SECRETS.birthday,
    birthplace: SECRETS.birthplace,
    inn: SECRETS.inn,
    documents: [{ type: 'PASSPORT_RF', series: SECRETS.passportSeries, number: SECRETS.passportNumber }],
    passport: {
      series: SECRETS.passportSeries,
      number: SECRETS.passportNumber,
      issuer: SECRETS.passportIssuer,
      issuer_date: SECRETS.passportIssuedOn,
      issuer_code: SECRETS.passportCode,
    },
  },
  npd: { tax_reference: SECRETS.taxReference, phone: SECRETS.phoneFps },
  response: { masked_account: SECRETS.maskedAccount, recurrent: { token: SECRETS.recurrentToken } },
  headers: { 'x-partner-sign': SECRETS.signature },
  config: { privateKeyPem: SECRETS.privateKey },
};

test('a request/response object with every sensitive field logs none of their values', () => {
  const mem = memoryLogger();
  mem.logger.info({ request }, 'bank request');
  mem.logger.error({ err: new Error(`declined card ${SECRETS.cardNumber}`) }, 'failed');
  const out = mem.text();
  // Short values are looked for as whole JSON strings ("11" would otherwise match inside ids).
  const leaked = Object.entries(SECRETS).filter(([, v]) =>
    out.includes(v.length < 6 ? JSON.stringify(v) : v),
  );
  expect(leaked.map(([name]) => name)).toEqual([]);
  // The non-sensitive parts are still there: the redaction is targeted, the test can fail.
  expect(out).toContain('ps_visible_1');
  expect(out).toContain('ООО Ромашка');
  expect(out).toContain('044525225');
});

test("the client's debug line carries method, path, status, code, duration and key, never the body", async () => {
  const server = await startBankServer(keys.publicKey);
  const mem = memoryLogger('debug');
  const bank = clientFor(server, keys, { logger: mem.logger });
  server.reply((_r, i) =>
    i === 0
      ? { json: { status: 'ok', session: { id: 'ps_1', status: 'in_progress' } } }
      : { status: 400, json: { status: 'error', error: { code: 'invalid_request', description: 'bad' } } },
  );
  await bank.sessions.initPayout(
    {
      payment_method: f.fpsPayout,
      amount_details: f.amount,
      participant_details: { recipient: { full_name: 'Получатель Секретный' } },
    },
    { idempotencyKey: 'idem-key-1' },
  );
  await bank.npd.check({ tax_reference: SECRETS.taxReference }).catch(() => undefined);
  await bank.close();
  await server.close();
  const entries = mem.lines.map((l) => JSON.parse(l) as { bank?: Record<string, unknown> });
  expect(entries[0]!.bank).toMatchObject({
    method: 'POST',
    path: '/api/v1/session/init/payout',
    httpStatus: 200,
    idempotencyKey: 'idem-key-1',
    attempt: 1,
  });
  expect(typeof entries[0]!.bank!.durationMs).toBe('number');
  expect(entries[1]!.bank).toMatchObject({
    path: '/api/v1/npd/check',
    httpStatus: 400,
    bankCode: 'invalid_request',
  });
  const out = mem.text();
  for (const value of [
    f.fpsPayout.bank_account.faster_payment_system.phone,
    'Получатель Секретный',
    SECRETS.taxReference,
  ]) {
    expect(out).not.toContain(value);
  }
});
