/** What a report may show: no formulas, no whole card, account or phone numbers. */
import { parse } from 'csv-parse/sync';
import { loadBatch, writeReport, type ReportResult } from '../../src/csv';
import {
  ACCOUNT,
  accountRow,
  BIK,
  CARD,
  cardRow,
  csvText,
  fpsRow,
  HEADER,
  luhnCard,
  utf8,
} from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const col = (name: string): number => HEADER.indexOf(name);
const records = (out: Buffer): string[][] => parse(out.toString('utf8'), { relax_column_count: true });

describe('report: formula injection is neutralised in every cell', () => {
  it('echoed input cells and result columns beginning with = + - @ tab CR get a leading quote', () => {
    const header = [...HEADER, '=evil()', 'note'];
    const rows = [
      { ...cardRow({ reference: 'a', last_name: '=HYPERLINK("http://evil.example","x")' }), note: '+cmd' },
      { ...cardRow({ reference: 'b', service_name: '@SUM(1+1)', amount: '-5,00' }), note: '\t=1' },
      { ...cardRow({ reference: 'c', description: '\r=2' }), note: '-3' },
      cardRow({ reference: 'd' }),
    ];
    const batch = loadBatch(utf8(csvText(rows, { header })), { policy: 'partial' });
    expect(batch.rows.map((r) => r.errors.map((e) => e.rule))).toEqual([
      ['formula_like'],
      ['amount_positive', 'formula_like'],
      ['formula_like'],
      [],
    ]);
    const results = new Map<number, ReportResult>([
      [5, { state: 'failed', error_code: '=bank_code', reason: '-1 от банка', bank_session_id: '@ps' }],
    ]);
    const out = records(writeReport(batch, results));
    const n = header.length;
    expect(out[0]![n - 2]).toBe("'=evil()");
    expect(out[1]![col('last_name')]).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(out[1]![n - 1]).toBe("'+cmd");
    expect(out[2]![col('service_name')]).toBe("'@SUM(1+1)");
    expect(out[2]![col('amount')]).toBe("'-5,00");
    expect(out[2]![n - 1]).toBe("'\t=1");
    expect(out[3]![col('description')]).toBe("'\r=2");
    expect(out[3]![n - 1]).toBe("'-3");
    expect(out[4]!.slice(n)).toEqual(['failed', "'@ps", '', '', "'=bank_code", "'-1 от банка", '', 'failed']);
    for (const cell of out.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // the loaded cells themselves stay as the file has them
    expect(batch.rows[1]!.cells[col('amount')]).toBe('-5,00');
  });
});

describe('report: card, account and phone numbers are masked by default', () => {
  const spacedCard = CARD.replace(/(\d{4})(?=\d)/g, '$1 ');
  const rows = [
    cardRow({ reference: 'a', card_number: spacedCard }),
    accountRow({ reference: 'b' }),
    fpsRow({ reference: 'c' }),
    cardRow({ reference: 'd', card_number: luhnCard('4', 12) }), // too short: invalid, still mostly a number
    cardRow({ reference: 'e', card_number: luhnCard('4', 19) }),
  ];

  it('cards show the first 6 and last 4 digits, accounts and phones the last 4', () => {
    const batch = loadBatch(utf8(csvText(rows)), { policy: 'partial' });
    const bytes = writeReport(batch, new Map());
    const out = records(bytes);
    expect(out[1]![col('card_number')]).toBe(`${CARD.slice(0, 6)}******${CARD.slice(-4)}`);
    expect(out[1]![col('card_number')]).toMatch(/^\d{6}\*{6}\d{4}$/);
    expect(out[2]![col('account')]).toBe(`****************${ACCOUNT.slice(-4)}`);
    expect(out[2]![col('bik')]).toBe(BIK); // a bank's code, not the customer's
    expect(out[3]![col('phone')]).toBe('*******6789');
    expect(out[4]![col('card_number')]).toBe(`********${luhnCard('4', 12).slice(-4)}`);
    const long = luhnCard('4', 19);
    expect(out[5]![col('card_number')]).toBe(`${long.slice(0, 6)}*********${long.slice(-4)}`);
    const text = bytes.toString('utf8');
    for (const secret of [CARD, spacedCard, ACCOUNT, '79123456789', '(912) 345-67-89', long.slice(0, 12)])
      expect(text).not.toContain(secret);
    // what was loaded (and goes to done/ as the file) is untouched
    expect(batch.rows[0]!.cells[col('card_number')]).toBe(spacedCard);
    expect(batch.accepted[0]!.method).toEqual({ type: 'card', cardNumber: CARD });
  });

  it('a file refused for its header still masks the rows it lists; { mask: false } writes them as given', () => {
    const header = HEADER.filter((h) => h !== 'inn');
    const batch = loadBatch(utf8(csvText(rows.slice(0, 3), { header })));
    expect(batch.fileErrors.map((e) => e.rule)).toEqual(['missing_column']);
    const at = (name: string): number => header.indexOf(name);
    const masked = records(writeReport(batch, new Map()));
    expect(masked[1]![at('card_number')]).toBe(`${CARD.slice(0, 6)}******${CARD.slice(-4)}`);
    expect(masked[2]![at('account')]).toBe(`****************${ACCOUNT.slice(-4)}`);
    const plain = records(writeReport(batch, new Map(), { mask: false }));
    expect(plain[1]![at('card_number')]).toBe(spacedCard);
    expect(plain[2]![at('account')]).toBe(ACCOUNT);
    expect(plain[3]![at('phone')]).toBe("'+7 (912) 345-67-89"); // unmasked, a leading + is still neutralised
  });
});
