import { loadBatch, type RowError } from '../../src/csv';
import {
  ACCOUNT,
  accountRow,
  BIK,
  CARD,
  cardRow,
  csvText,
  fpsRow,
  HEADER,
  INN,
  inn12,
  luhnCard,
  utf8,
  type Row,
} from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

/** Loads header + the given rows (first data row is row 2) and returns [row, column, rule] of every error. */
function errorsOf(...rows: Row[]): [number, string | null, string][] {
  const batch = loadBatch(utf8(csvText(rows)), { policy: 'partial' });
  expect(batch.fileErrors).toEqual([]);
  return batch.rows.flatMap((r) =>
    r.errors.map((e): [number, string | null, string] => [e.row, e.column, e.rule]),
  );
}

function onlyError(row: Row): RowError {
  const batch = loadBatch(utf8(csvText([row])), { policy: 'partial' });
  expect(batch.rows[0]!.errors).toHaveLength(1);
  expect(batch.rows[0]!.request).toBeUndefined();
  expect(batch.accepted).toEqual([]);
  return batch.rows[0]!.errors[0]!;
}

describe('row validation: every rule names row, column and rule', () => {
  it('a valid row of each method has no errors', () => {
    expect(errorsOf(cardRow(), accountRow(), fpsRow())).toEqual([]);
  });

  it('amount: positive, at most two decimals, a number', () => {
    expect(errorsOf(cardRow({ amount: '0' }), cardRow({ reference: 'b', amount: '-5,00' }))).toEqual([
      [2, 'amount', 'amount_positive'],
      [3, 'amount', 'amount_positive'],
    ]);
    expect(onlyError(cardRow({ amount: '10,555' }))).toEqual({
      row: 2,
      column: 'amount',
      rule: 'amount_decimals',
      message: 'amount "10,555" has more than two decimals',
    });
    expect(onlyError(cardRow({ amount: 'сто' }))).toMatchObject({
      row: 2,
      column: 'amount',
      rule: 'amount_format',
    });
    expect(onlyError(cardRow({ amount: '1,234.56' }))).toMatchObject({
      column: 'amount',
      rule: 'amount_format',
    });
    expect(onlyError(cardRow({ amount: '' }))).toEqual({
      row: 2,
      column: 'amount',
      rule: 'required',
      message: 'amount is blank',
    });
  });

  it('card: 13–19 digits and the Luhn check; spaces in the number are formatting', () => {
    const last = Number(CARD.slice(-1));
    expect(onlyError(cardRow({ card_number: CARD.slice(0, -1) + ((last + 1) % 10) }))).toEqual({
      row: 2,
      column: 'card_number',
      rule: 'card_luhn',
      message: 'card number fails the Luhn check (a digit is mistyped)',
    });
    expect(onlyError(cardRow({ card_number: luhnCard('4', 12) }))).toMatchObject({
      column: 'card_number',
      rule: 'card_length',
    });
    expect(onlyError(cardRow({ card_number: '2.20022E+15' })).message).toContain('format the column as text');
    const spaced = CARD.replace(/(\d{4})(?=\d)/g, '$1 ');
    const batch = loadBatch(utf8(csvText([cardRow({ card_number: spaced })])));
    expect(batch.accepted[0]!.method).toEqual({ type: 'card', cardNumber: CARD });
  });

  it('INN: 12 digits and both check digits', () => {
    const wrong = INN.slice(0, 11) + ((Number(INN[11]) + 1) % 10);
    expect(onlyError(cardRow({ inn: wrong }))).toEqual({
      row: 2,
      column: 'inn',
      rule: 'inn_checksum',
      message: 'tax number (INN) fails its check digits',
    });
    expect(onlyError(cardRow({ inn: '7707083893' }))).toMatchObject({
      row: 2,
      column: 'inn',
      rule: 'inn_format',
    });
    expect(onlyError(cardRow({ inn: '' }))).toMatchObject({ row: 2, column: 'inn', rule: 'required' });
  });

  it('INN region 00: its own rule when the check digits are right; a check-digit failure stays inn_checksum', () => {
    const region00 = inn12('0012345678');
    expect(region00.startsWith('00')).toBe(true);
    expect(onlyError(cardRow({ inn: region00 }))).toEqual({
      row: 2,
      column: 'inn',
      rule: 'inn_region',
      message: 'tax number (INN) starts with region 00, which does not exist',
    });
    const region00BadDigits = region00.slice(0, 11) + ((Number(region00[11]) + 1) % 10);
    expect(onlyError(cardRow({ inn: region00BadDigits }))).toEqual({
      row: 2,
      column: 'inn',
      rule: 'inn_checksum',
      message: 'tax number (INN) fails its check digits',
    });
  });

  it('bank account: BIK 9 digits, account 20 digits, control key', () => {
    const changed = ACCOUNT.slice(0, 19) + ((Number(ACCOUNT[19]) + 1) % 10);
    expect(onlyError(accountRow({ account: changed }))).toEqual({
      row: 2,
      column: 'account',
      rule: 'account_key',
      message: 'account number does not match the BIK (control key check failed)',
    });
    expect(onlyError(accountRow({ bik: BIK.slice(1) }))).toEqual({
      row: 2,
      column: 'bik',
      rule: 'bik_format',
      message: 'BIK must be 9 digits (the leading 0 was probably dropped by the spreadsheet)',
    });
    expect(onlyError(accountRow({ account: ACCOUNT.slice(1) }))).toMatchObject({
      column: 'account',
      rule: 'account_format',
    });
  });

  it('phone: 11 digits starting with 7; 8… is an error with a hint', () => {
    expect(onlyError(fpsRow({ phone: '8 912 345-67-89' }))).toEqual({
      row: 2,
      column: 'phone',
      rule: 'phone_starts_with_8',
      message:
        'phone starts with 8; write it with the country code instead: +7 and the 10 digits after the 8',
    });
    expect(onlyError(fpsRow({ phone: '912 345-67-89' }))).toMatchObject({
      row: 2,
      column: 'phone',
      rule: 'phone_format',
    });
    expect(onlyError(fpsRow({ bank_id: 'bank 1' }))).toMatchObject({
      row: 2,
      column: 'bank_id',
      rule: 'bank_id_format',
    });
  });

  it('description: FPS at most 140 characters (the bank), other methods at most 210 (a payment order)', () => {
    expect(errorsOf(fpsRow({ description: 'я'.repeat(140) }))).toEqual([]);
    expect(onlyError(fpsRow({ description: 'я'.repeat(141) }))).toEqual({
      row: 2,
      column: 'description',
      rule: 'description_length',
      message: 'description has 141 characters; FPS allows at most 140',
    });
    expect(
      errorsOf(cardRow({ description: 'я'.repeat(210) }), accountRow({ description: 'я'.repeat(210) })),
    ).toEqual([]);
    expect(onlyError(cardRow({ description: 'я'.repeat(300) }))).toEqual({
      row: 2,
      column: 'description',
      rule: 'description_length',
      message: "description has 300 characters; at most 210 (a payment order's purpose field)",
    });
    expect(onlyError(accountRow({ description: 'я'.repeat(211) }))).toMatchObject({
      column: 'description',
      rule: 'description_length',
    });
  });

  it('currency and method must be known; each method needs its fields', () => {
    expect(onlyError(cardRow({ currency: 'usd' }))).toEqual({
      row: 2,
      column: 'currency',
      rule: 'currency_unknown',
      message: 'currency "usd" is not supported; only RUB',
    });
    expect(errorsOf(cardRow({ currency: 'Rub' }))).toEqual([]);
    expect(onlyError(cardRow({ currency: 'рубли' }))).toMatchObject({
      column: 'currency',
      rule: 'currency_unknown',
    });
    expect(onlyError(cardRow({ method: 'cash' }))).toMatchObject({
      row: 2,
      column: 'method',
      rule: 'method_unknown',
    });
    expect(errorsOf(cardRow({ method: 'Карта' }), fpsRow({ method: 'СБП' }))).toEqual([]);
    expect(onlyError(cardRow({ card_number: '' }))).toEqual({
      row: 2,
      column: 'card_number',
      rule: 'method_fields',
      message: 'payout method card needs card_number, which is blank',
    });
    expect(
      errorsOf(accountRow({ bik: '', account: ' ' }), fpsRow({ reference: 'f', phone: '', bank_id: '' })),
    ).toEqual([
      [2, 'bik', 'method_fields'],
      [2, 'account', 'method_fields'],
      [3, 'phone', 'method_fields'],
      [3, 'bank_id', 'method_fields'],
    ]);
  });

  it('names, reference, service name: blank is an error; reference has a charset and a length limit', () => {
    expect(errorsOf(cardRow({ last_name: ' ', first_name: '' }))).toEqual([
      [2, 'last_name', 'required'],
      [2, 'first_name', 'required'],
    ]);
    expect(errorsOf(cardRow({ middle_name: '' }))).toEqual([]);
    expect(onlyError(cardRow({ service_name: '' }))).toMatchObject({
      row: 2,
      column: 'service_name',
      rule: 'required',
    });
    expect(onlyError(cardRow({ reference: 'выплата 1' }))).toMatchObject({
      row: 2,
      column: 'reference',
      rule: 'reference_format',
    });
    expect(onlyError(cardRow({ reference: 'a'.repeat(65) }))).toMatchObject({
      column: 'reference',
      rule: 'reference_format',
    });
    expect(errorsOf(cardRow({ reference: 'A.b_c:d-9'.padEnd(64, 'x') }))).toEqual([]);
  });

  it('email and metadata JSON', () => {
    expect(onlyError(cardRow({ email: 'ivanov@' }))).toEqual({
      row: 2,
      column: 'email',
      rule: 'email_format',
      message: 'email "ivanov@" is not a valid address',
    });
    expect(onlyError(cardRow({ metadata: '{"a":1' }))).toMatchObject({
      row: 2,
      column: 'metadata',
      rule: 'metadata_json',
    });
    expect(errorsOf(cardRow({ metadata: 'not json {x}' }))).toEqual([]);
  });

  it('metadata: at most 4 096 characters of the JSON the bank receives, text or object', () => {
    expect(errorsOf(cardRow({ metadata: 'я'.repeat(4_096) }))).toEqual([]);
    expect(onlyError(cardRow({ metadata: 'я'.repeat(4_097) }))).toEqual({
      row: 2,
      column: 'metadata',
      rule: 'metadata_length',
      message: 'metadata has 4097 characters; at most 4096',
    });
    // {"a":"…"} is 8 characters around the value.
    expect(errorsOf(cardRow({ metadata: `{"a":"${'x'.repeat(4_088)}"}` }))).toEqual([]);
    expect(onlyError(cardRow({ metadata: `{"a":"${'x'.repeat(4_089)}"}` }))).toMatchObject({
      column: 'metadata',
      rule: 'metadata_length',
    });
    // A megabyte in one cell: refused by its length, the row named, nothing else lost.
    expect(onlyError(cardRow({ metadata: 'x'.repeat(1_000_000) }))).toMatchObject({
      row: 2,
      rule: 'metadata_length',
    });
  });

  it('self_employed: yes/no (and да/нет), default yes', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          cardRow({ self_employed: 'нет' }),
          cardRow({ reference: 'b', self_employed: 'YES' }),
          cardRow({ reference: 'c' }),
        ]),
      ),
    );
    expect(batch.accepted.map((r) => r.selfEmployed)).toEqual([false, true, true]);
    expect(onlyError(cardRow({ self_employed: 'maybe' }))).toMatchObject({
      row: 2,
      column: 'self_employed',
      rule: 'self_employed_value',
    });
  });

  it('reports all errors of a row in column order', () => {
    expect(errorsOf(cardRow({ inn: '123', amount: '1,001', currency: 'eur', email: 'x' }))).toEqual([
      [2, 'inn', 'inn_format'],
      [2, 'amount', 'amount_decimals'],
      [2, 'currency', 'currency_unknown'],
      [2, 'email', 'email_format'],
    ]);
  });

  it('messages never echo card or account numbers', () => {
    const badCard = CARD.slice(0, -1) + ((Number(CARD.slice(-1)) + 1) % 10);
    const badAccount = ACCOUNT.slice(0, 19) + ((Number(ACCOUNT[19]) + 1) % 10);
    const batch = loadBatch(
      utf8(csvText([cardRow({ card_number: badCard }), accountRow({ account: badAccount })])),
      {
        policy: 'partial',
      },
    );
    expect(batch.rows.map((r) => r.errors.map((e) => e.rule))).toEqual([['card_luhn'], ['account_key']]);
    const text = JSON.stringify(batch.rows.flatMap((r) => r.errors));
    expect(text).not.toContain(CARD.slice(0, 12));
    expect(text).not.toContain(ACCOUNT.slice(0, 12));
  });
});

describe('currency is optional: no column or a blank cell means rub', () => {
  it('a file without the currency column is read as rubles', () => {
    const header = HEADER.filter((h) => h !== 'currency');
    const batch = loadBatch(utf8(csvText([cardRow(), fpsRow()], { header })));
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rejected).toBe(false);
    expect(batch.accepted.map((r) => [r.reference, r.currency, r.amount])).toEqual([
      ['p-1', 'rub', 150000],
      ['p-3', 'rub', 150000],
    ]);
  });

  it('a blank currency cell is rub; any other value is still an error', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          cardRow({ currency: '' }),
          cardRow({ reference: 'b', currency: ' ' }),
          cardRow({ reference: 'c', currency: 'EUR' }),
        ]),
      ),
      { policy: 'partial' },
    );
    expect(batch.accepted.map((r) => [r.reference, r.currency])).toEqual([
      ['p-1', 'rub'],
      ['b', 'rub'],
    ]);
    expect(batch.rows[2]!.errors).toEqual([
      {
        row: 4,
        column: 'currency',
        rule: 'currency_unknown',
        message: 'currency "EUR" is not supported; only RUB',
      },
    ]);
  });
});
