/**
 * UTF-16 without a byte order mark (issue 39): told by where its NULs sit, not by how many there are.
 * A Cyrillic-heavy file has fewer than a quarter NUL bytes, which the old share rule took for binary.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { loadBatch, writeReport } from '../../src/csv';
import { utf16WithoutBom } from '../../src/csv/decode';
import { readFileFormat, streamRecords } from '../../src/csv/stream';
import { CARD, INN } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en');

const HEADER = ['Референс', 'Фамилия', 'Имя', 'Отчество', 'ИНН', 'Способ', 'Номер карты', 'Сумма', 'Услуга'];
const CYRILLIC = [
  HEADER,
  ['v-1', 'Щербакова', 'Ефросинья', 'Всеволодовна', INN, 'card', CARD, '1 234,50', 'Вёрстка журнала'],
  ['v-2', 'Жуковский', 'Святослав', 'Ярославович', INN, 'card', CARD, '10,00', 'Художественное оформление'],
];
const ASCII = [
  ['reference', 'last_name', 'first_name', 'inn', 'method', 'card_number', 'amount', 'service_name'],
  ['a-1', 'Ivanov', 'Ivan', INN, 'card', CARD, '1500.00', 'Design'],
];
const text = (rows: string[][], d = ';') => rows.map((r) => r.join(d)).join('\r\n') + '\r\n';
const nulShare = (b: Buffer) => b.filter((x) => x === 0).length / b.length;

/** A PNG's signature and IHDR chunk, then pseudo-random bytes: a real picture's start. */
function png(): Buffer {
  let seed = 39;
  const random = Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a0000000d49484452000001000000010008060000005c72a866', 'hex'),
    Buffer.from(random),
  ]);
}

describe('UTF-16 without a byte order mark', () => {
  it.each(['utf-16le', 'utf-16be'] as const)(
    'a Cyrillic-heavy %s file (under 25 %% NUL bytes) is read, and its report written back the same way',
    (encoding) => {
      const bytes = iconv.encode(text(CYRILLIC), encoding, { addBOM: false });
      expect(nulShare(bytes)).toBeLessThan(0.25); // what the old share rule refused as binary
      expect(utf16WithoutBom(bytes)).toBe(encoding);
      const batch = loadBatch(bytes);
      expect(batch.fileErrors).toEqual([]);
      expect(batch.format).toMatchObject({ encoding, bom: false, delimiter: ';', lineEnding: '\r\n' });
      expect(batch.rows.map((r) => r.errors.map((e) => e.message))).toEqual([[], []]);
      expect(batch.accepted.map((r) => [r.reference, r.recipient.lastName, r.amount])).toEqual([
        ['v-1', 'Щербакова', 123450],
        ['v-2', 'Жуковский', 1000],
      ]);
      const report = iconv.decode(writeReport(batch, new Map()), encoding);
      expect(report.startsWith('Референс;Фамилия')).toBe(true);
    },
  );

  it.each(['utf-16le', 'utf-16be'] as const)('an ASCII-only %s file is read', (encoding) => {
    const bytes = iconv.encode(text(ASCII, ','), encoding, { addBOM: false });
    expect(utf16WithoutBom(bytes)).toBe(encoding);
    const batch = loadBatch(bytes);
    expect(batch.fileErrors).toEqual([]);
    expect(batch.accepted.map((r) => [r.reference, r.amount])).toEqual([['a-1', 150000]]);
  });

  it.each(['utf-16le', 'utf-16be'] as const)(
    'the report streamer finds %s in a file without a BOM, as loadBatch does',
    async (encoding) => {
      const path = join(mkdtempSync(join(tmpdir(), 'utf16-')), 'batch.csv');
      writeFileSync(path, iconv.encode(text(CYRILLIC), encoding, { addBOM: false }));
      const format = await readFileFormat(path, {});
      expect(format).toMatchObject({ encoding, bom: false, delimiter: ';' });
      const rows: string[][] = [];
      for await (const { cells } of streamRecords(path, format)) rows.push(cells);
      expect(rows).toEqual(CYRILLIC);
    },
  );

  it('a stated encoding that is not the UTF-16 found is refused, naming both', () => {
    const bytes = iconv.encode(text(CYRILLIC), 'utf-16le', { addBOM: false });
    expect(loadBatch(bytes, { encoding: 'windows-1251' }).fileErrors.map((e) => e.message)).toEqual([
      'the file is UTF-16LE (without a byte order mark) but windows-1251 was stated',
    ]);
  });

  it('a PNG (signature, header chunk, random bytes) is still refused as not text', () => {
    expect(utf16WithoutBom(png())).toBeUndefined();
    expect(loadBatch(png()).fileErrors.map((e) => [e.rule, e.message])).toEqual([
      [
        'file_unreadable',
        'the file is not text (it holds binary data, not a CSV export): save it from the spreadsheet as CSV',
      ],
    ]);
  });

  it('NULs on one side only but bytes of many values on it (not text) are refused', () => {
    let seed = 7;
    const bytes = Buffer.from(
      Array.from({ length: 4096 }, (_, i) =>
        i % 2 === 1 ? 0 : ((seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff) | 0x80,
      ),
    );
    expect(utf16WithoutBom(bytes)).toBeUndefined(); // U+0080–U+00FF with C1 controls among them
    expect(loadBatch(bytes).fileErrors.map((e) => e.rule)).toEqual(['file_unreadable']);
  });

  it('a UTF-8 file with one stray NUL is not taken for UTF-16, even where that NUL makes a comma', () => {
    // The NUL right after an even-placed comma: as UTF-16LE the pair reads ",", and every other pair of
    // ASCII bytes as some letter of a far script; only the spread of the "high" bytes gives it away.
    const ascii = text(ASCII, ',');
    const padded = ascii.indexOf(',') % 2 === 0 ? ascii : `x${ascii}`;
    const comma = padded.indexOf(',');
    const bytes = Buffer.from(`${padded.slice(0, comma + 1)}\0${padded.slice(comma + 1)}`, 'utf8');
    expect(bytes.length % 2).toBe(0);
    expect(utf16WithoutBom(bytes)).toBeUndefined();
    expect(loadBatch(bytes).fileErrors.map((e) => e.rule)).toEqual(['file_unreadable']);
  });
});
