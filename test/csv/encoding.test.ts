import iconv from 'iconv-lite';
import { parse } from 'csv-parse/sync';
import { loadBatch, looksLikeMojibake, writeReport } from '../../src/csv';
import { cardRow, cp1251, csvText, HEADER, utf8, type Row } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const RU_NAMES = { last_name: 'Фамилия', first_name: 'Имя' };

/** One line per part, each in its own encoding: [encode, rows] … (the first part carries the header). */
function mixedFile(names: Record<string, string>, parts: [(text: string) => Buffer, Row[]][]): Buffer {
  const header = csvText([], { names }).split('\n')[0]!;
  const chunks: Buffer[] = [parts[0]![0](header + '\n')];
  for (const [encode, rows] of parts) {
    const body = csvText(rows, { names }).split('\n').slice(1).join('\n');
    chunks.push(encode(body));
  }
  return Buffer.concat(chunks);
}

const lastNames = (batch: ReturnType<typeof loadBatch>): string[] =>
  batch.rows.map((r) => r.cells[HEADER.indexOf('last_name')]!);

describe('encoding_mixed: lines that do not all decode the same way', () => {
  it('a UTF-8 row among Windows-1251 rows is refused naming that row; every cell still reads right', () => {
    const bytes = mixedFile({}, [
      [cp1251, [cardRow({ reference: 'a', last_name: 'Иванов' })]],
      [utf8, [cardRow({ reference: 'b', last_name: 'Смирнов', first_name: 'Пётр' })]],
      [cp1251, [cardRow({ reference: 'c', last_name: 'Сёмина' }), cardRow({ reference: 'd' })]],
    ]);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    for (const policy of ['whole-file', 'partial'] as const) {
      const batch = loadBatch(bytes, { policy });
      expect(batch.fileErrors).toEqual([
        {
          row: 3,
          column: 'last_name',
          rule: 'encoding_mixed',
          message:
            'the file mixes encodings: row 3 is UTF-8 but the rest of the file is Windows-1251; save the whole file again in one encoding',
        },
      ]);
      expect(batch.rejected).toBe(true);
      expect(batch.accepted).toEqual([]);
    }
    const batch = loadBatch(bytes);
    expect(batch.format.encoding).toBe('windows-1251');
    expect(batch.rows.map((r) => r.row)).toEqual([2, 3, 4, 5]);
    expect(lastNames(batch)).toEqual(['Иванов', 'Смирнов', 'Сёмина', 'Иванов']); // not "РЎРјРёСЂРЅРѕРІ"
    expect(batch.rows[1]!.cells[HEADER.indexOf('first_name')]).toBe('Пётр');

    const report = iconv.decode(writeReport(batch, new Map()), 'win1251');
    const records: string[][] = parse(report);
    expect(records.slice(1).map((r) => r[HEADER.indexOf('last_name')])).toEqual(lastNames(batch));
    expect(records[2]!.slice(-4)).toEqual([
      'file_rejected',
      `not paid: the file was rejected (${batch.fileErrors[0]!.message})`,
      '',
      'rejected',
    ]);
  });

  it('the minority encoding is the offending one: Windows-1251 rows in a mostly UTF-8 file, counted by spreadsheet rows', () => {
    const bytes = mixedFile(RU_NAMES, [
      [
        utf8,
        [
          cardRow({ reference: 'a', description: 'две\r\nстроки' }), // one row over two lines
          cardRow({ reference: 'b' }),
        ],
      ],
      [cp1251, [cardRow({ reference: 'c', service_name: 'Перевод' })]],
      [utf8, [cardRow({ reference: 'd' })]],
      [cp1251, [cardRow({ reference: 'e', first_name: 'Алёна' })]],
    ]);
    const batch = loadBatch(bytes);
    expect(batch.format.encoding).toBe('utf-8');
    expect(batch.fileErrors.map((e) => [e.row, e.column, e.rule])).toEqual([
      [4, 'last_name', 'encoding_mixed'],
    ]);
    expect(batch.fileErrors[0]!.message).toBe(
      'the file mixes encodings: rows 4, 6 are Windows-1251 but the rest of the file is UTF-8; save the whole file again in one encoding',
    );
    expect(batch.format.headers.slice(0, 3)).toEqual(['reference', 'Фамилия', 'Имя']);
    expect(batch.rows[4]!.cells[HEADER.indexOf('first_name')]).toBe('Алёна');
  });

  it('a file with a UTF-8 BOM and Windows-1251 rows is refused as mixed, naming the first such row', () => {
    const bytes = Buffer.concat([
      BOM,
      mixedFile(RU_NAMES, [
        [utf8, [cardRow({ reference: 'a' })]],
        [cp1251, [cardRow({ reference: 'b' }), cardRow({ reference: 'c' })]],
        [utf8, [cardRow({ reference: 'd' })]],
      ]),
    ]);
    const batch = loadBatch(bytes);
    expect(batch.format).toMatchObject({ encoding: 'utf-8', bom: true });
    expect(batch.fileErrors.map((e) => [e.row, e.rule])).toEqual([[3, 'encoding_mixed']]);
    expect(batch.fileErrors[0]!.message).toContain('rows 3, 4 are Windows-1251');
    // with no UTF-8 text at all it is simply not UTF-8, as before
    expect(loadBatch(Buffer.concat([BOM, cp1251(csvText([cardRow()]))])).fileErrors).toEqual([
      { row: 1, column: null, rule: 'encoding', message: 'the file is not valid UTF-8' },
    ]);
  });

  it('a file stated Windows-1251 that is UTF-8 is refused instead of read as mojibake', () => {
    const batch = loadBatch(utf8(csvText([cardRow({ reference: 'a', last_name: 'Ёлкин' })])), {
      encoding: 'windows-1251',
    });
    expect(batch.rejected).toBe(true);
    expect(batch.fileErrors).toEqual([
      {
        row: 2,
        column: null,
        rule: 'encoding',
        message: 'windows-1251 was stated but the file is UTF-8 (row 2 reads as UTF-8 text)',
      },
    ]);
  });

  it('genuine Windows-1251 text with ё, «», №, no-break spaces and "СЁ…" is not mistaken for UTF-8', () => {
    const rows = [
      cardRow({ reference: 'a', last_name: 'Сёмин', first_name: 'Алёна', amount: '12\u00a0000' }),
      cardRow({ reference: 'b', last_name: 'СЁМИН', service_name: 'Аудит ООО «ТОР»', description: 'Акт №5' }),
      cardRow({ reference: 'c', last_name: 'Фёдоров', metadata: '№7 — «июнь»' }),
    ];
    const batch = loadBatch(cp1251(csvText(rows, { delimiter: ';' })));
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rows.flatMap((r) => r.errors)).toEqual([]);
    expect(batch.accepted.map((r) => r.recipient.lastName)).toEqual(['Сёмин', 'СЁМИН', 'Фёдоров']);
  });
});

describe('mojibake: text garbled before payrun got it', () => {
  const mangle = (text: string): string => iconv.decode(utf8(text), 'win1251');
  const asCp1251 = mangle('Смирнов');
  const asCp1252 = iconv.decode(utf8('Иванова Анна'), 'win1252');

  it('the samples are what a wrong decoding makes of Russian', () => {
    expect(asCp1251).toBe('РЎРјРёСЂРЅРѕРІ');
    expect(asCp1252.startsWith('Ð˜Ð²Ð°Ð½')).toBe(true);
  });

  it('a UTF-8 file whose name, service or description cell is mojibake gets a row error naming the column', () => {
    const batch = loadBatch(
      utf8(
        csvText([
          cardRow({ reference: 'a', last_name: asCp1251 }),
          cardRow({ reference: 'b', service_name: `Услуга ${asCp1252}` }),
          cardRow({ reference: 'c', description: `Этап 1: ${mangle('Дизайн')}` }),
          cardRow({ reference: 'd', metadata: mangle('проект') }),
          cardRow({ reference: 'e' }),
        ]),
      ),
      { policy: 'partial' },
    );
    expect(batch.fileErrors).toEqual([]);
    expect(batch.rows.flatMap((r) => r.errors.map((e) => [e.row, e.column, e.rule]))).toEqual([
      [2, 'last_name', 'mojibake'],
      [3, 'service_name', 'mojibake'],
      [4, 'description', 'mojibake'],
      [5, 'metadata', 'mojibake'],
    ]);
    expect(batch.rows[0]!.errors[0]!.message).toBe(
      'last name looks like UTF-8 text that was read as Windows-1251 or Windows-1252 on the way (like "РЎРјРёСЂРЅРѕРІ" for "Смирнов"); export the file again from the original',
    );
    expect(batch.accepted.map((r) => r.reference)).toEqual(['e']);
  });

  it('the heuristic: two Russian letters in a row in that form; one such pair occurs in real text', () => {
    // "Ив" read as Windows-1251: И is D0 98, and 0x98 is unassigned there (U+FFFD, or U+0098 in some software)
    for (const text of ['РЎРј', 'Ð¡Ð¼', 'Ð˜Ð²', 'Р\uFFFDРІ', 'Р\u0098РІ', mangle('Ёж')])
      expect([text, looksLikeMojibake(text)]).toEqual([text, true]);
    for (const text of [
      mangle('я'),
      'ТОР»',
      'Сё',
      'СЁМИН',
      'Рё',
      'Смирнов',
      'Ðoe',
      'Smith',
      'ООО «РОСС»',
      'Р№5 С№6',
    ])
      expect([text, looksLikeMojibake(text)]).toEqual([text, false]);
  });
});
