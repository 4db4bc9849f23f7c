/** The files under batches/examples/ are documented in docs/batch-format.md; this pins what they show. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBatch, loadStopList, STOP_LIST_MESSAGE } from '../../src/csv';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const dir = join(__dirname, '../../batches/examples');
const example = (name: string): Buffer => readFileSync(join(dir, name));

describe('batches/examples', () => {
  it('01: UTF-8, comma, cards, rubles with a decimal point', () => {
    const batch = loadBatch(example('01-utf8-comma-cards.csv'));
    expect(batch.format).toMatchObject({
      encoding: 'utf-8',
      bom: false,
      delimiter: ',',
      lineEnding: '\n',
      amountColumn: 'amount',
    });
    expect(batch.rejected).toBe(false);
    expect(batch.accepted.map((r) => [r.reference, r.amount, r.serviceName])).toEqual([
      ['2024-06-act-001', 1500000, 'Дизайн, вёрстка'],
      ['2024-06-act-002', 250050, 'Перевод текста'],
      ['2024-06-act-003', 123400, 'Фотосъёмка'],
    ]);
    expect(batch.totals.acceptedKopecks).toBe(1873450);
  });

  it('02: Windows-1251, semicolon, Russian headers, "1 234,56", a no-break space, ИТОГО row', () => {
    const batch = loadBatch(example('02-win1251-semicolon-ru.csv'));
    expect(batch.format).toMatchObject({
      encoding: 'windows-1251',
      bom: false,
      delimiter: ';',
      lineEnding: '\r\n',
    });
    expect(batch.fileErrors).toEqual([]);
    expect(batch.accepted.map((r) => [r.reference, r.amount, r.selfEmployed])).toEqual([
      ['R-2024-06-01', 123456, true],
      ['R-2024-06-02', 1200000, true],
      ['R-2024-06-03', 99990, false],
    ]);
    expect(batch.accepted[0]!.description).toBe('Акт №12; июнь');
    expect(batch.totalRow).toMatchObject({ row: 5, kopecks: 1423446 });
  });

  it('02 with the example stop-list: row 3 is refused', () => {
    const stopList = loadStopList(join(dir, 'stop-list.txt'));
    const batch = loadBatch(example('02-win1251-semicolon-ru.csv'), { stopList, policy: 'partial' });
    expect(batch.rows[1]!.errors).toEqual([
      { row: 3, column: 'inn', rule: 'stop_list', message: STOP_LIST_MESSAGE },
    ]);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['R-2024-06-01', 'R-2024-06-03']);
  });

  it('03: UTF-8 with BOM, CRLF, kopecks column, FPS + bank account + card, quoted comma and newline, JSON metadata', () => {
    const batch = loadBatch(example('03-mixed-methods-kopecks-bom.csv'));
    expect(batch.format).toMatchObject({
      encoding: 'utf-8',
      bom: true,
      delimiter: ',',
      lineEnding: '\r\n',
      amountColumn: 'amount_kopecks',
    });
    expect(batch.rejected).toBe(false);
    expect(batch.rows.map((r) => r.row)).toEqual([2, 3, 4]);
    expect(batch.accepted.map((r) => r.method)).toEqual([
      { type: 'fps', phone: '79123456789', bankId: '100000000111' },
      { type: 'bank_account', bik: '044525225', account: '40817810300000123456' },
      { type: 'card', cardNumber: '2202203074185291' },
    ]);
    expect(batch.accepted[0]!.metadata).toEqual({ contract: '5', stage: 1 });
    expect(batch.accepted[1]!.description).toBe('Этап 2\r\n(приёмка 30.06)');
    expect(batch.accepted[1]!.metadata).toBe('проект Альфа');
    expect(batch.accepted[2]!.selfEmployed).toBe(false);
    expect(batch.totals.acceptedKopecks).toBe(1834456);
  });

  it('04: deliberate errors, each named by row, column and rule', () => {
    const whole = loadBatch(example('04-with-errors.csv'));
    expect(whole.rejected).toBe(true);
    expect(whole.accepted).toEqual([]);
    const batch = loadBatch(example('04-with-errors.csv'), { policy: 'partial' });
    expect(batch.rows.flatMap((r) => r.errors.map((e) => [e.row, e.column, e.rule]))).toEqual([
      [2, 'reference', 'reference_duplicate'],
      [3, 'amount', 'amount_positive'],
      [4, 'card_number', 'card_luhn'],
      [5, 'inn', 'inn_checksum'],
      [6, 'bik', 'bik_format'],
      [7, 'phone', 'phone_starts_with_8'],
      [8, 'reference', 'reference_duplicate'],
      [9, 'amount', 'amount_decimals'],
      [9, 'currency', 'currency_unknown'],
      [10, 'method', 'method_unknown'],
      [11, 'first_name', 'required'],
      [11, 'email', 'email_format'],
      [12, 'metadata', 'metadata_json'],
    ]);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['e-012']);
    expect(batch.rows[0]!.errors[0]!.message).toBe(
      'payout reference "e-001" is used in rows 2 and 8; each payout needs its own reference',
    );
  });

  it('the template has every column and no rows', () => {
    const batch = loadBatch(readFileSync(join(dir, '../template.csv')));
    expect(batch.fileErrors.map((e) => e.rule)).toEqual(['empty_file']);
    expect(batch.format.headers).toHaveLength(18);
  });
});
