import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentHash, loadBatch, loadStopList, STOP_LIST_MESSAGE } from '../../src/csv';
import { cardRow, csvText, HEADER, INN, INN2, INN3, utf8 } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const three = () => [
  cardRow({ reference: 'a', amount: '100' }),
  cardRow({ reference: 'b', amount: '0' }),
  cardRow({ reference: 'c', amount: '1 000,50' }),
];

describe('policy', () => {
  it('whole-file (default): one invalid row rejects the file, nothing is accepted', () => {
    const batch = loadBatch(utf8(csvText(three())));
    expect(batch.rejected).toBe(true);
    expect(batch.accepted).toEqual([]);
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rows.map((r) => r.row)).toEqual([2, 3, 4]);
    expect(batch.rows[0]!.request?.reference).toBe('a');
    expect(batch.totals).toEqual({ rows: 3, valid: 2, invalid: 1, acceptedKopecks: 0 });
  });

  it('partial: valid rows proceed, invalid ones are reported', () => {
    const batch = loadBatch(utf8(csvText(three())), { policy: 'partial' });
    expect(batch.rejected).toBe(false);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['a', 'c']);
    expect(batch.rows[1]!.errors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [3, 'amount', 'amount_positive'],
    ]);
    expect(batch.totals).toEqual({ rows: 3, valid: 2, invalid: 1, acceptedKopecks: 110050 });
  });

  it('whole-file with every row valid accepts all', () => {
    const batch = loadBatch(utf8(csvText([cardRow({ reference: 'a' }), cardRow({ reference: 'b' })])));
    expect(batch.rejected).toBe(false);
    expect(batch.accepted).toHaveLength(2);
  });
});

describe('missing and conflicting columns reject the file at once', () => {
  it('names each missing required column (currency is not required)', () => {
    const header = HEADER.filter((h) => !['inn', 'currency', 'amount'].includes(h));
    const batch = loadBatch(utf8(csvText([cardRow()], { header })), { policy: 'partial' });
    expect(batch.rejected).toBe(true);
    expect(batch.fileErrors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [1, 'inn', 'missing_column'],
      [1, 'amount', 'missing_column'],
    ]);
    expect(batch.fileErrors[0]!.message).toBe('required column "inn" is missing');
    expect(batch.rows.map((r) => r.row)).toEqual([2]);
    expect(batch.accepted).toEqual([]);
  });

  it('rejects both amount and amount_kopecks, and a column given twice', () => {
    const both = loadBatch(utf8(csvText([cardRow()], { header: [...HEADER, 'amount_kopecks'] })));
    expect(both.fileErrors.map((e) => [e.column, e.rule])).toEqual([['amount', 'amount_columns']]);
    const twice = loadBatch(utf8(csvText([cardRow()], { header: [...HEADER, 'ИНН'] })));
    expect(twice.fileErrors.map((e) => [e.column, e.rule])).toEqual([['inn', 'duplicate_column']]);
  });
});

describe('duplicate references', () => {
  it('marks every occurrence and names all the rows', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          cardRow({ reference: 'x' }),
          cardRow({ reference: 'y' }),
          cardRow({ reference: 'x' }),
          cardRow({ reference: 'x' }),
        ]),
      ),
      { policy: 'partial' },
    );
    const dup = {
      column: 'reference',
      rule: 'reference_duplicate',
      message: 'payout reference "x" is used in rows 2, 4 and 5; each payout needs its own reference',
    };
    expect(batch.rows.map((r) => r.errors)).toEqual([
      [{ row: 2, ...dup }],
      [],
      [{ row: 4, ...dup }],
      [{ row: 5, ...dup }],
    ]);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['y']);
  });

  it('two rows: the message names both', () => {
    const batch = loadBatch(utf8(csvText([cardRow({ reference: 'x' }), cardRow({ reference: 'x' })])));
    expect(batch.rows[1]!.errors[0]!.message).toContain('rows 2 and 3');
    expect(batch.rejected).toBe(true);
  });
});

describe('control total', () => {
  const rows = [cardRow({ reference: 'a', amount: '100' }), cardRow({ reference: 'b', amount: '1 000,50' })];

  it('expectTotalKopecks matching passes, a mismatch rejects the file naming expected vs actual', () => {
    expect(loadBatch(utf8(csvText(rows)), { expectTotalKopecks: 110050 }).rejected).toBe(false);
    const batch = loadBatch(utf8(csvText(rows)), { expectTotalKopecks: 120050, policy: 'partial' });
    expect(batch.rejected).toBe(true);
    expect(batch.accepted).toEqual([]);
    expect(batch.fileErrors).toEqual([
      {
        row: 1,
        column: null,
        rule: 'control_total',
        message:
          'control total mismatch: the expected total says 1 200,50 ₽, the rows add up to 1 100,50 ₽; the file may be truncated',
      },
    ]);
  });

  it('a final TOTAL / ИТОГО row is checked and is not a data row', () => {
    const ok = loadBatch(utf8(csvText([...rows, { reference: 'ИТОГО', amount: '1 100,50' }]) + '\n\n'));
    expect(ok.rejected).toBe(false);
    expect(ok.rows).toHaveLength(2);
    expect(ok.totalRow).toMatchObject({ row: 4, kopecks: 110050 });

    const truncated = loadBatch(utf8(csvText([rows[0]!, { reference: 'total', amount: '1100,50' }])), {
      policy: 'partial',
    });
    expect(truncated.rejected).toBe(true);
    expect(truncated.fileErrors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [3, 'amount', 'control_total'],
    ]);
    expect(truncated.fileErrors[0]!.message).toContain(
      'the total row says 1 100,50 ₽, the rows add up to 100,00 ₽',
    );
  });

  it('a TOTAL row that is not last is a row error', () => {
    const batch = loadBatch(
      utf8(csvText([rows[0]!, { ...cardRow({ reference: 'TOTAL', amount: '100' }) }, rows[1]!])),
      {
        policy: 'partial',
      },
    );
    expect(batch.totalRow).toBeUndefined();
    expect(batch.rows[1]!.errors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [3, 'reference', 'total_row_position'],
    ]);
  });

  it('zero and negative amounts are readable: they count in the total (and the rows are still invalid)', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          rows[0]!,
          cardRow({ reference: 'b', amount: '0' }),
          cardRow({ reference: 'c', amount: '-5,00' }),
          { reference: 'ИТОГО', amount: '95,00' },
        ]),
      ),
      { policy: 'partial' },
    );
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rows.map((r) => [r.kopecks, r.errors.map((e) => e.rule)])).toEqual([
      [10000, []],
      [0, ['amount_positive']],
      [-500, ['amount_positive']],
    ]);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['a']);
  });

  it('rows with unreadable amounts make the total unverifiable', () => {
    const batch = loadBatch(
      utf8(
        csvText([rows[0]!, cardRow({ reference: 'b', amount: 'x' }), { reference: 'TOTAL', amount: '100' }]),
      ),
      { policy: 'partial' },
    );
    expect(batch.fileErrors.map((e) => e.rule)).toEqual(['control_total']);
    expect(batch.fileErrors[0]!.message).toContain('row 3 has no readable amount');
  });
});

describe('stop-list', () => {
  it('rejects rows whose INN is listed, with the reason', () => {
    const batch = loadBatch(
      utf8(csvText([cardRow({ reference: 'a', inn: INN }), cardRow({ reference: 'b', inn: INN2 })])),
      {
        policy: 'partial',
        stopList: new Set([INN2]),
      },
    );
    expect(batch.accepted.map((r) => r.reference)).toEqual(['a']);
    expect(batch.rows[1]!.errors).toEqual([
      { row: 3, column: 'inn', rule: 'stop_list', message: STOP_LIST_MESSAGE },
    ]);
    expect(STOP_LIST_MESSAGE).toBe(
      'tax number is on the stop-list (e.g. a former employee; the law forbids paying them as self-employed)',
    );
  });

  it('loadStopList reads one INN per line with # comments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stoplist-'));
    const path = join(dir, 'stop.txt');
    writeFileSync(path, `# former employees\r\n${INN2}  # left 2024-03\n\n  ${INN3}\n7707083893\n`);
    expect(loadStopList(path)).toEqual(new Set([INN2, INN3, '7707083893']));
    writeFileSync(path, `${INN}\n12345\n`);
    expect(() => loadStopList(path)).toThrow('line 2');
  });
});

describe('contentHash', () => {
  it('is the sha256 hex of the bytes', () => {
    expect(contentHash(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
