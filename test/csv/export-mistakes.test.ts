/**
 * What accounting's exports get wrong most (issue 25): a mistyped amount, rouble signs, list dashes,
 * Excel's "Unicode text", and files that are not text at all.
 */
import iconv from 'iconv-lite';
import { parse } from 'csv-parse/sync';
import { loadBatch, writeReport } from '../../src/csv';
import { cardRow, csvText, HEADER, utf8, type Row } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const rulesOf = (rows: Row[], opts = {}) =>
  loadBatch(utf8(csvText(rows)), { policy: 'partial', ...opts }).rows.map((r) =>
    r.errors.map((e) => [e.row, e.column, e.rule, e.message]),
  );

describe('amount_above_limit: one payout above the limit is refused, naming row, column and limit', () => {
  it('150 000 000,00 is refused under the default limit of 1 000 000,00 ₽; 1 000 000,00 itself is paid', () => {
    expect(
      rulesOf([
        cardRow({ reference: 'a', amount: '150 000 000,00' }),
        cardRow({ reference: 'b', amount: '1 000 000,00' }),
      ]),
    ).toEqual([
      [
        [
          2,
          'amount',
          'amount_above_limit',
          'amount "150 000 000,00" is above the limit of one payout, 1 000 000,00 ₽; check the amount (the limit is PAYRUN_MAX_PAYOUT)',
        ],
      ],
      [],
    ]);
  });

  it('the limit is configurable, and applies to amount_kopecks too', () => {
    expect(
      rulesOf([cardRow({ reference: 'a', amount: '50 000,01' })], {
        maxPayoutKopecks: 50_000_00,
      })[0]![0]!.slice(2),
    ).toEqual([
      'amount_above_limit',
      'amount "50 000,01" is above the limit of one payout, 50 000,00 ₽; check the amount (the limit is PAYRUN_MAX_PAYOUT)',
    ]);
    const header = HEADER.map((h) => (h === 'amount' ? 'amount_kopecks' : h));
    const rows = [{ ...cardRow({ reference: 'a' }), amount_kopecks: '5000001' }];
    const batch = loadBatch(utf8(csvText(rows, { header })), { maxPayoutKopecks: 50_000_00 });
    expect(batch.rows[0]!.errors.map((e) => [e.column, e.rule])).toEqual([
      ['amount_kopecks', 'amount_above_limit'],
    ]);
  });
  it('PAYRUN_MAX_PAYOUT sets it in roubles; a value that is not an amount is named', () => {
    const before = process.env.PAYRUN_MAX_PAYOUT;
    try {
      process.env.PAYRUN_MAX_PAYOUT = '2 000 000';
      expect(rulesOf([cardRow({ amount: '1 500 000,00' })])).toEqual([[]]);
      expect(rulesOf([cardRow({ amount: '2 000 000,01' })])[0]!.map((e) => e[2])).toEqual([
        'amount_above_limit',
      ]);
      process.env.PAYRUN_MAX_PAYOUT = 'миллион';
      expect(() => rulesOf([cardRow()])).toThrow(/PAYRUN_MAX_PAYOUT: the most one payout may be, in roubles/);
    } finally {
      if (before === undefined) delete process.env.PAYRUN_MAX_PAYOUT;
      else process.env.PAYRUN_MAX_PAYOUT = before;
    }
  });
});

describe('rouble signs after an amount', () => {
  it.each(['1 234,50 руб.', '1 234,50 руб', '1234,50р.', '1 234,50 р', '1 234,50 ₽', '1 234.50 RUB'])(
    '%p reads as 1 234,50',
    (amount) => {
      const batch = loadBatch(utf8(csvText([cardRow({ amount })])));
      expect(batch.rows[0]!.errors).toEqual([]);
      expect(batch.accepted[0]!.amount).toBe(123450);
    },
  );

  it('a rouble sign in amount_kopecks is a unit mix-up, refused saying so', () => {
    const header = HEADER.map((h) => (h === 'amount' ? 'amount_kopecks' : h));
    const rows = [{ ...cardRow(), amount_kopecks: '123450 руб.' }];
    const [error] = loadBatch(utf8(csvText(rows, { header }))).rows[0]!.errors;
    expect(error).toMatchObject({ column: 'amount_kopecks', rule: 'amount_format' });
    expect(error!.message).toContain('is in roubles but the column is amount_kopecks');
  });
});

describe('a list dash before a word is text, not a formula', () => {
  it('"- аванс" and "+ премия" are paid as written and written as text in the report', () => {
    const rows = [
      cardRow({ reference: 'a', description: '- аванс за март' }),
      cardRow({ reference: 'b', service_name: '+ премия' }),
    ];
    const batch = loadBatch(utf8(csvText(rows)));
    expect(batch.rows.map((r) => r.errors)).toEqual([[], []]);
    expect(batch.accepted.map((r) => [r.description, r.serviceName])).toEqual([
      ['- аванс за март', 'Дизайн логотипа'],
      [undefined, '+ премия'],
    ]);
    const records: string[][] = parse(writeReport(batch, new Map()).toString('utf8'));
    expect(records[1]![HEADER.indexOf('description')]).toBe("'- аванс за март");
    expect(records[2]![HEADER.indexOf('service_name')]).toBe("'+ премия");
  });

  it.each(['-аванс', "-2+3+cmd|' /C calc'!A0", '- 5', '\t- аванс', '-\tаванс'])(
    '%p is still refused',
    (description) => {
      expect(rulesOf([cardRow({ description })])[0]!.map((e) => e[2])).toEqual(['formula_like']);
    },
  );
});

describe("Excel's Unicode text: UTF-16 with a byte order mark", () => {
  const text = csvText(
    [cardRow({ reference: 'a', amount: '1 234,50' }), cardRow({ reference: 'b', last_name: 'Сёмина' })],
    { delimiter: '\t', eol: '\r\n' },
  );
  it.each([
    ['utf-16le', Buffer.from([0xff, 0xfe])],
    ['utf-16be', Buffer.from([0xfe, 0xff])],
  ] as const)(
    '%s, tab-separated: read as such, and the report written back the same way',
    (encoding, bom) => {
      const bytes = Buffer.concat([bom, iconv.encode(text, encoding, { addBOM: false })]);
      const batch = loadBatch(bytes);
      expect(batch.fileErrors).toEqual([]);
      expect(batch.format).toMatchObject({ encoding, bom: true, delimiter: '\t', lineEnding: '\r\n' });
      expect(batch.accepted.map((r) => [r.reference, r.recipient.lastName, r.amount])).toEqual([
        ['a', 'Иванов', 123450],
        ['b', 'Сёмина', 150000],
      ]);
      const report = writeReport(batch, new Map());
      expect(report.subarray(0, 2)).toEqual(bom);
      const records: string[][] = parse(iconv.decode(report.subarray(2), encoding), { delimiter: '\t' });
      expect(records[2]![HEADER.indexOf('last_name')]).toBe('Сёмина');
    },
  );
});

describe('a file that is not text is told apart from one that mixes encodings', () => {
  it('random bytes are file_unreadable, not encoding_mixed', () => {
    let seed = 25;
    const random = Buffer.from(
      Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff),
    );
    const batch = loadBatch(random);
    expect(batch.fileErrors.map((e) => e.rule)).toEqual(['file_unreadable']);
    expect(batch.fileErrors[0]!.message).toMatch(/not text/);
  });

  it('an Excel workbook is named as such', () => {
    const xlsx = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(200, 1)]);
    expect(loadBatch(xlsx).fileErrors[0]).toMatchObject({ rule: 'file_unreadable' });
    expect(loadBatch(xlsx).fileErrors[0]!.message).toContain('.xlsx');
  });

  it('UTF-16 without a byte order mark is read as such, not as seven missing columns', () => {
    const bytes = iconv.encode(csvText([cardRow()]), 'utf-16le', { addBOM: false });
    const batch = loadBatch(bytes);
    expect(batch.fileErrors).toEqual([]);
    expect(batch.format).toMatchObject({ encoding: 'utf-16le', bom: false });
    expect(batch.accepted.map((r) => r.recipient.lastName)).toEqual(['Иванов']);
  });
});
