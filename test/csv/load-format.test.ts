import { loadBatch } from '../../src/csv';
import type { PayoutRequest } from '../../src/domain';
import {
  ACCOUNT,
  accountRow,
  BIK,
  CARD,
  cardRow,
  cp1251,
  csvText,
  fpsRow,
  HEADER,
  INN,
  utf8,
} from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const RU_NAMES: Record<string, string> = {
  reference: 'Референс',
  last_name: 'Фамилия',
  first_name: 'Имя',
  middle_name: 'Отчество',
  inn: 'ИНН',
  method: 'Способ',
  card_number: 'Номер карты',
  bik: 'БИК',
  account: 'Счёт',
  phone: 'Телефон',
  bank_id: 'Банк СБП',
  amount: 'Сумма',
  amount_kopecks: 'Сумма, коп',
  currency: 'Валюта',
  service_name: 'Услуга',
  description: 'Описание',
  email: 'E-mail',
  metadata: 'Метаданные',
  self_employed: 'Самозанятый',
};

describe('loadBatch: format variants', () => {
  it('reads a UTF-8 comma file with card, bank-account and FPS rows into the exact request shape', () => {
    const batch = loadBatch(
      utf8(
        csvText([cardRow(), accountRow({ self_employed: 'no' }), fpsRow({ metadata: '{"contract":"15"}' })]),
      ),
    );
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rejected).toBe(false);
    expect(batch.format).toEqual({
      encoding: 'utf-8',
      bom: false,
      delimiter: ',',
      amountColumn: 'amount',
      headers: HEADER,
      lineEnding: '\n',
    });
    expect(batch.rows.map((r) => [r.row, r.errors])).toEqual([
      [2, []],
      [3, []],
      [4, []],
    ]);
    const base = {
      recipient: {
        lastName: 'Иванов',
        firstName: 'Иван',
        middleName: 'Иванович',
        taxReference: INN,
        email: 'ivanov@example.ru',
      },
      amount: 150000,
      currency: 'rub' as const,
      serviceName: 'Дизайн логотипа',
    };
    expect(batch.accepted).toEqual<PayoutRequest[]>([
      { ...base, reference: 'p-1', method: { type: 'card', cardNumber: CARD }, selfEmployed: true },
      {
        ...base,
        reference: 'p-2',
        method: { type: 'bank_account', bik: BIK, account: ACCOUNT },
        selfEmployed: false,
      },
      {
        ...base,
        reference: 'p-3',
        method: { type: 'fps', phone: '79123456789', bankId: '100000000111' },
        description: 'Оплата по договору 15',
        metadata: { contract: '15' },
        selfEmployed: true,
      },
    ]);
    expect(batch.totals).toEqual({ rows: 3, valid: 3, invalid: 0, acceptedKopecks: 450000 });
    expect(batch.rows[0]!.request).toBe(batch.accepted[0]);
  });

  it('reads a Windows-1251 semicolon file with Russian headers, decimal commas and space/no-break-space thousands', () => {
    const text = csvText(
      [
        cardRow({ amount: '1 234,56' }),
        cardRow({ reference: 'p-2', amount: '12\u00a0345,6', middle_name: '' }),
        cardRow({ reference: 'p-3', amount: '7', metadata: 'договор №7; акт' }),
      ],
      { delimiter: ';', names: RU_NAMES, eol: '\r\n' },
    );
    const bytes = cp1251(text);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const batch = loadBatch(bytes);
    expect(batch.fileErrors).toEqual([]);
    expect(batch.format).toMatchObject({
      encoding: 'windows-1251',
      bom: false,
      delimiter: ';',
      lineEnding: '\r\n',
    });
    expect(batch.format.headers[0]).toBe('Референс');
    expect(batch.accepted.map((r) => r.amount)).toEqual([123456, 1234560, 700]);
    expect(batch.accepted[0]!.recipient.lastName).toBe('Иванов');
    expect(batch.accepted[1]!.recipient).not.toHaveProperty('middleName');
    expect(batch.accepted[2]!.metadata).toBe('договор №7; акт');
    expect(batch.rows[2]!.cells[16]).toBe('договор №7; акт');
  });

  it('honours stated encoding and delimiter', () => {
    const bytes = cp1251(csvText([cardRow()], { delimiter: ';' }));
    const batch = loadBatch(bytes, { encoding: 'windows-1251', delimiter: ';' });
    expect(batch.accepted).toHaveLength(1);
    expect(batch.format).toMatchObject({ encoding: 'windows-1251', delimiter: ';' });
  });

  it('strips a UTF-8 BOM and records it; CRLF is recorded', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      utf8(csvText([cardRow()], { eol: '\r\n' })),
    ]);
    const batch = loadBatch(bytes);
    expect(batch.format).toMatchObject({ encoding: 'utf-8', bom: true, lineEnding: '\r\n' });
    expect(batch.format.headers[0]).toBe('reference');
    expect(batch.accepted.map((r) => r.reference)).toEqual(['p-1']);
  });

  it('keeps quoted delimiters and newlines inside a cell, numbering rows as a spreadsheet does', () => {
    const text = csvText([
      cardRow({
        service_name: 'Дизайн, "вёрстка"',
        description: 'строка "в кавычках"\r\nи вторая, с запятой',
      }),
      cardRow({ reference: 'p-2', amount: '0' }),
    ]);
    const batch = loadBatch(utf8(text), { policy: 'partial' });
    expect(batch.accepted[0]!.serviceName).toBe('Дизайн, "вёрстка"');
    expect(batch.accepted[0]!.description).toBe('строка "в кавычках"\r\nи вторая, с запятой');
    expect(batch.rows[1]!.row).toBe(3);
    expect(batch.rows[1]!.errors).toEqual([
      { row: 3, column: 'amount', rule: 'amount_positive', message: 'amount "0" must be positive' },
    ]);
  });

  it('ignores trailing empty lines and blank rows, keeping row numbers', () => {
    const text = csvText([cardRow(), {}, cardRow({ reference: 'p-2', amount: '-1' })]) + '\n\n,,,\n\n';
    const batch = loadBatch(utf8(text), { policy: 'partial' });
    expect(batch.rows.map((r) => r.row)).toEqual([2, 4]);
    expect(batch.rows[1]!.errors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [4, 'amount', 'amount_positive'],
    ]);
    expect(batch.totals).toEqual({ rows: 2, valid: 1, invalid: 1, acceptedKopecks: 150000 });
  });

  it('reads amounts from an amount_kopecks column', () => {
    const header = HEADER.map((h) => (h === 'amount' ? 'amount_kopecks' : h));
    const text = csvText(
      [
        { ...cardRow(), amount_kopecks: '123456' },
        { ...cardRow({ reference: 'p-2' }), amount_kopecks: '12,5' },
      ],
      { header },
    );
    const batch = loadBatch(utf8(text), { policy: 'partial' });
    expect(batch.format.amountColumn).toBe('amount_kopecks');
    expect(batch.accepted.map((r) => r.amount)).toEqual([123456]);
    expect(batch.rows[1]!.errors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [3, 'amount_kopecks', 'amount_format'],
    ]);
  });

  it('matches headers case-insensitively and trimmed, with Russian aliases in any mix', () => {
    const names = { ...RU_NAMES, inn: '  инн ', amount: 'СУММА', reference: ' Reference ', account: 'Счет' };
    const batch = loadBatch(utf8(csvText([cardRow(), accountRow()], { names })));
    expect(batch.fileErrors).toEqual([]);
    expect(batch.accepted.map((r) => r.reference)).toEqual(['p-1', 'p-2']);
  });

  it('flags a row with more cells than the header (an unquoted decimal comma in a comma file)', () => {
    const text =
      csvText([cardRow()]) +
      csvText([cardRow({ reference: 'p-2' })])
        .split('\n')[1]!
        .replace('1500.00', '1500,00') +
      '\n';
    const batch = loadBatch(utf8(text), { policy: 'partial' });
    expect(batch.rows[1]!.errors[0]).toMatchObject({ row: 3, column: null, rule: 'column_count' });
  });

  it('rejects a file stated UTF-8 that is not, an unclosed quote, an empty file and a header-only file', () => {
    const notUtf8 = loadBatch(cp1251(csvText([cardRow()])), { encoding: 'utf-8' });
    expect(notUtf8.rejected).toBe(true);
    expect(notUtf8.fileErrors).toEqual([
      { row: 1, column: null, rule: 'encoding', message: 'the file is not valid UTF-8' },
    ]);
    const unclosed = loadBatch(utf8(csvText([cardRow()]) + 'p-2,"Петров\n'));
    expect(unclosed.fileErrors).toMatchObject([{ rule: 'csv_syntax', column: null }]);
    expect(unclosed.rejected).toBe(true);
    expect(loadBatch(utf8('\n\n')).fileErrors).toEqual([
      { row: 1, column: null, rule: 'empty_file', message: 'the file is empty' },
    ]);
    const headerOnly = loadBatch(utf8(csvText([])));
    expect(headerOnly.fileErrors).toEqual([
      { row: 1, column: null, rule: 'empty_file', message: 'the file has a header but no payout rows' },
    ]);
    expect(headerOnly.rejected).toBe(true);
  });
});
