import iconv from 'iconv-lite';
import { parse } from 'csv-parse/sync';
import {
  loadBatch,
  RESULT_COLUMNS,
  summarize,
  summarizeReport,
  writeReport,
  type ReportResult,
} from '../../src/csv';
import {
  ACCOUNT,
  accountRow,
  CARD,
  cardRow,
  cp1251,
  csvText,
  fpsRow,
  HEADER,
  utf8,
} from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const paid = (id: string): ReportResult => ({
  state: 'paid',
  bank_session_id: 'ps_1',
  bank_payout_id: id,
  receipt_link: `https://receipts.example/${id}`,
});

describe('writeReport', () => {
  it('round-trips a Windows-1251 ";" file: same cells, result columns appended, same encoding and line ending', () => {
    const text = csvText(
      [
        cardRow({ reference: 'a', amount: '1 234,56', description: 'Вёрстка; макеты\r\nи правки' }),
        accountRow({ reference: 'b', amount: '0' }),
        fpsRow({ reference: 'c', amount: '10,00' }),
      ],
      { delimiter: ';', eol: '\r\n' },
    );
    const input = cp1251(text);
    const batch = loadBatch(input, { policy: 'partial' });
    expect(batch.format).toMatchObject({ encoding: 'windows-1251', delimiter: ';', lineEnding: '\r\n' });
    const results = new Map<number, ReportResult>([
      [2, paid('po_1')],
      [
        4,
        {
          state: 'failed',
          bank_session_id: 'ps_1',
          error_code: 'card_declined',
          reason: 'Банк отклонил выплату',
        },
      ],
    ]);
    const out = writeReport(batch, results);

    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(out)).toThrow(); // not UTF-8: it is 1251
    const decoded = iconv.decode(out, 'win1251');
    expect(decoded.startsWith('reference;last_name;')).toBe(true);
    expect(decoded).toContain('\r\n');
    expect(/(?<!\r)\n/.test(decoded)).toBe(false); // every line break is CRLF, as in the input
    expect(decoded.endsWith('\r\n')).toBe(true);
    const records: string[][] = parse(decoded, { delimiter: ';' });
    const original: string[][] = parse(iconv.decode(input, 'win1251'), { delimiter: ';' });
    expect(records).toHaveLength(4);
    // The codes, then the state in words (English here: the standalone project's language).
    expect(records[0]).toEqual([...HEADER, ...RESULT_COLUMNS, 'Result']);
    // Every cell as the file has it, except card, account and phone numbers, which are masked.
    const masked = (i: number, column: string, value: string): string[] => {
      const cells = [...original[i]!];
      cells[HEADER.indexOf(column)] = value;
      return cells;
    };
    expect(records[1]!.slice(0, HEADER.length)).toEqual(
      masked(1, 'card_number', `${CARD.slice(0, 6)}******${CARD.slice(-4)}`),
    );
    expect(records[2]!.slice(0, HEADER.length)).toEqual(
      masked(2, 'account', `${'*'.repeat(16)}${ACCOUNT.slice(-4)}`),
    );
    expect(records[3]!.slice(0, HEADER.length)).toEqual(masked(3, 'phone', '*******6789'));
    expect(records[1]!.slice(HEADER.length)).toEqual([
      'paid',
      'ps_1',
      'po_1',
      'https://receipts.example/po_1',
      '',
      '',
      '', // headroom: none given
      'paid', // no words for a code the catalogue does not know: the code itself
    ]);
    expect(records[2]!.slice(HEADER.length)).toEqual([
      'invalid',
      '',
      '',
      '',
      'amount_positive',
      'amount: amount "0" must be positive',
      '',
      'invalid',
    ]);
    expect(records[3]!.slice(HEADER.length)).toEqual([
      'failed',
      'ps_1',
      '',
      '',
      'card_declined',
      'Банк отклонил выплату',
      '',
      'failed',
    ]);
    expect(records[1]![HEADER.indexOf('description')]).toBe('Вёрстка; макеты\r\nи правки');
  });

  it('keeps a UTF-8 BOM and LF, and writes the total row back', () => {
    const text = csvText([cardRow({ reference: 'a', amount: '5' }), { reference: 'ИТОГО', amount: '5' }]);
    const batch = loadBatch(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(text)]));
    const out = writeReport(batch, new Map([[2, paid('po_9')]]));
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const body = out.subarray(3).toString('utf8');
    expect(body).not.toContain('\r');
    const records: string[][] = parse(body);
    expect(records.map((r) => r[0])).toEqual(['reference', 'a', 'ИТОГО']);
    expect(records[2]!.slice(HEADER.length)).toEqual(['', '', '', '', '', '', '', '']);
  });

  it('a whole-file rejection gives valid rows state rejected with the reason; rows wider than the header stay aligned', () => {
    const wide =
      csvText([cardRow({ reference: 'a' })]) +
      csvText([cardRow({ reference: 'b' })]).split('\n')[1] +
      ',extra\n';
    const batch = loadBatch(utf8(wide));
    expect(batch.rejected).toBe(true);
    const records: string[][] = parse(writeReport(batch, new Map()).toString('utf8'), {
      relax_column_count: false,
    });
    const width = HEADER.length + 1;
    expect(records[0]).toEqual([...HEADER, '', ...RESULT_COLUMNS, 'Result']);
    expect(records[1]!.slice(width)).toEqual([
      'rejected',
      '',
      '',
      '',
      'file_rejected',
      'not paid: the file was rejected (other rows are invalid)',
      '',
      'rejected',
    ]);
    expect(records[2]![HEADER.length]).toBe('extra');
    expect(records[2]![width]).toBe('invalid');
    expect(records[2]![width + 4]).toBe('column_count');
  });

  it('a file rejected for missing columns still lists every row with the file error as reason', () => {
    const batch = loadBatch(utf8(csvText([cardRow()], { header: HEADER.filter((h) => h !== 'inn') })));
    const records: string[][] = parse(writeReport(batch, new Map()).toString('utf8'));
    expect(records).toHaveLength(2);
    expect(records[1]!.slice(-4)).toEqual([
      'file_rejected',
      'not paid: the file was rejected (required column "inn" is missing)',
      '',
      'rejected',
    ]);
  });
});

describe('summarize', () => {
  it('counts and totals by state in kopecks, formatted, with a text line; an unknown amount is said to be unreadable', () => {
    const s = summarize([
      { state: 'paid', amount: 123456 },
      { state: 'paid', amount: 100 },
      { state: 'failed', amount: 5000 },
      { state: 'invalid' },
    ]);
    expect(s.byState).toEqual({
      paid: { count: 2, kopecks: 123556, formatted: '1 235,56', unreadable: 0 },
      failed: { count: 1, kopecks: 5000, formatted: '50,00', unreadable: 0 },
      invalid: { count: 1, kopecks: 0, formatted: '0,00', unreadable: 1 },
    });
    expect(s.total).toEqual({ count: 4, kopecks: 128556, formatted: '1 285,56', unreadable: 1 });
    expect(s.text).toBe(
      '4 rows, 1 285,56 ₽ + 1 unreadable amount: paid 2 (1 235,56 ₽), failed 1 (50,00 ₽), invalid rows: 1 (amount unreadable)',
    );
  });

  it('summarizeReport takes amounts from the rows and defaults from validation', () => {
    const batch = loadBatch(
      utf8(csvText([cardRow({ reference: 'a', amount: '10' }), cardRow({ reference: 'b', amount: '0' })])),
      {
        policy: 'partial',
      },
    );
    const s = summarizeReport(batch, new Map([[2, paid('po_1')]]));
    expect(s.text).toBe('2 rows, 10,00 ₽: paid 1 (10,00 ₽), invalid rows: 1 (0,00 ₽)');
  });

  it('summaries add up: invalid rows count with their amounts where readable; unreadable ones are named', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          cardRow({ reference: 'a', amount: '100' }),
          cardRow({ reference: 'b', amount: '50,00' }),
          cardRow({ reference: 'c', amount: '30,00', inn: '123' }),
          cardRow({ reference: 'd', amount: 'сто' }),
          cardRow({ reference: 'e', amount: '0' }),
          cardRow({ reference: 'f', amount: '20,00' }),
        ]),
      ),
      { policy: 'partial' },
    );
    const s = summarizeReport(
      batch,
      new Map([
        [2, paid('po_1')],
        [3, { state: 'failed' }],
        [7, paid('po_2')],
      ]),
    );
    expect(s.byState).toEqual({
      paid: { count: 2, kopecks: 12000, formatted: '120,00', unreadable: 0 },
      failed: { count: 1, kopecks: 5000, formatted: '50,00', unreadable: 0 },
      invalid: { count: 3, kopecks: 3000, formatted: '30,00', unreadable: 1 },
    });
    expect(s.total).toEqual({ count: 6, kopecks: 20000, formatted: '200,00', unreadable: 1 });
    expect(Object.values(s.byState).reduce((sum, x) => sum + x.kopecks, 0)).toBe(s.total.kopecks);
    expect(s.unreadableRows).toEqual([5]);
    expect(s.text).toBe(
      '6 rows, 200,00 ₽ + 1 unreadable amount (row 5): paid 2 (120,00 ₽), failed 1 (50,00 ₽), invalid rows: 3 (30,00 ₽ + 1 unreadable amount)',
    );
  });

  it('a file refused for its header still has its amounts summed', () => {
    const header = HEADER.filter((h) => h !== 'inn');
    const batch = loadBatch(
      utf8(
        csvText([cardRow({ reference: 'a', amount: '10' }), cardRow({ reference: 'b', amount: 'x' })], {
          header,
        }),
      ),
    );
    expect(summarizeReport(batch, new Map()).text).toBe(
      '2 rows, 10,00 ₽ + 1 unreadable amount (row 3): rejected 2 (10,00 ₽ + 1 unreadable amount)',
    );
  });
});
