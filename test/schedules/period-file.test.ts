/**
 * A recurring payrun's period file (src/schedules/period-file.ts) and its template's check (template.ts):
 * the period's date appended to every reference and nothing else changed, whatever the template's
 * encoding, separator or quoting; the same period always the same bytes.
 */
import iconv from 'iconv-lite';
import { loadBatch } from '../../src/csv';
import { periodFile, periodReference } from '../../src/schedules/period-file';
import { checkTemplate } from '../../src/schedules/template';
import { CARD, INN, INN2 } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('ru');

const HEADER = [
  'Референс',
  'Фамилия',
  'Имя',
  'ИНН',
  'Способ',
  'Номер карты',
  'Сумма',
  'Услуга',
  'Самозанятый',
];
const ROWS = [
  ['akt-17', 'Щербакова', 'Ефросинья', INN, 'карта', CARD, '1 234,50', 'Вёрстка; журнала "Весна"', 'да'],
  ['akt-18', 'Жуковский', 'Святослав', INN2, 'карта', CARD, '10,00', 'Оформление', 'нет'],
];
const quote = (c: string) => (/[;",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
const csv = (rows: string[][], d = ';') => rows.map((r) => r.map(quote).join(d)).join('\r\n') + '\r\n';
const TODAY = '2026-11-27';

/** Each template encoding a Russian accountant's export may have. */
const TEMPLATES: [string, Buffer][] = [
  ['Windows-1251, ";"', iconv.encode(csv([HEADER, ...ROWS]), 'win1251')],
  [
    'UTF-8 with BOM, ","',
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv([HEADER, ...ROWS], ','))]),
  ],
  ['UTF-16LE without BOM, tabs', iconv.encode(csv([HEADER, ...ROWS], '\t'), 'utf-16le')],
  [
    'Windows-1251 with a blank line and a total row',
    iconv.encode(csv([HEADER, ...ROWS, [], ['ИТОГО', '', '', '', '', '', '1 244,50', '', '']]), 'win1251'),
  ],
];

describe('a period file', () => {
  it.each(TEMPLATES)(
    'from a template in %s: every reference dated, every other cell as it was',
    (_, template) => {
      const before = loadBatch(template, { today: TODAY });
      expect(before.rejected).toBe(false);
      const period = periodFile(template, '2026-12-05');
      const after = loadBatch(period, { today: TODAY });
      expect(after.rejected).toBe(false);
      expect(after.format).toMatchObject({ encoding: 'utf-8', bom: true });
      expect(after.accepted.map((r) => r.reference)).toEqual(['akt-17.20261205', 'akt-18.20261205']);
      const rest = (r: (typeof before.accepted)[number]) => ({ ...r, reference: undefined });
      expect(after.accepted.map(rest)).toEqual(before.accepted.map(rest));
      expect(after.totals).toEqual(before.totals);
      expect(after.totalRow?.kopecks).toEqual(before.totalRow?.kopecks);
    },
  );

  it('is the same bytes for the same period, and other bytes for another', () => {
    const [, template] = TEMPLATES[0]!;
    expect(periodFile(template, '2026-12-05').equals(periodFile(template, '2026-12-05'))).toBe(true);
    expect(periodFile(template, '2026-12-05').equals(periodFile(template, '2026-12-20'))).toBe(false);
    expect(periodReference('akt-17', '2026-12-20')).toBe('akt-17.20261220');
  });
});

describe('a template', () => {
  it('passes with its rows and total, and its sha256', () => {
    const [, template] = TEMPLATES[0]!;
    const check = checkTemplate(template, { today: TODAY });
    expect(check).toEqual({
      ok: true,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      rows: 2,
      totalKopecks: 124_450,
    });
  });

  it('names each row that is dated, too long to take a period, or invalid', () => {
    const long = 'x'.repeat(56);
    const rows = [
      [...HEADER, 'Дата выплаты'],
      [...ROWS[0]!, '05.12.2026'],
      [long, ...ROWS[1]!.slice(1), ''],
      ['akt-19', ...ROWS[1]!.slice(1, 6), 'сто', ...ROWS[1]!.slice(7), ''],
    ];
    const check = checkTemplate(iconv.encode(csv(rows), 'win1251'), { today: TODAY });
    expect(check.ok).toBe(false);
    const errors = check.ok ? [] : check.errors.map((e) => [e.row, e.column, e.rule]);
    expect(errors).toEqual(
      expect.arrayContaining([
        [2, 'pay_on', 'template_pay_on'],
        [3, 'reference', 'template_reference_long'],
        [4, 'amount', expect.any(String)],
      ]),
    );
  });

  it('is refused whole over 1 MiB, before it is read', () => {
    const check = checkTemplate(Buffer.alloc(1_048_577, 0x41), { today: TODAY });
    expect(check).toEqual({
      ok: false,
      errors: [expect.objectContaining({ row: 1, rule: 'template_too_big' })],
    });
  });
});
