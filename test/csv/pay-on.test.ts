import { loadBatch } from '../../src/csv';
import { lastPayOn, moscowDate, payOnWakeMs, readPayOn } from '../../src/domain';
import { cardRow, csvText, HEADER, utf8, type Row } from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en');

// The pay_on column (issue 42): a Moscow day, written ДД.ММ.ГГГГ or ISO, from today to a year ahead.

const TODAY = '2026-11-26';
const load = (payOn: string, header = 'pay_on', today = TODAY) => {
  const row = { ...cardRow(), pay_on: payOn } as Row;
  const text = csvText([row], { header: [...HEADER, 'pay_on'], names: { pay_on: header } });
  return loadBatch(utf8(text), { policy: 'partial', today }).rows[0]!;
};

test('a date in either form, under a Russian or an English header, becomes the row’s payOn', () => {
  expect(load('05.12.2026').request?.payOn).toBe('2026-12-05');
  expect(load('2026-12-20', 'Дата выплаты').request?.payOn).toBe('2026-12-20');
  expect(load('5.1.2027', 'pay on').request?.payOn).toBe('2027-01-05');
  expect(load(TODAY).request?.payOn).toBe(TODAY); // today: pays at once
});

test('blank pays now: the row has no payOn at all (today’s path)', () => {
  const row = load('');
  expect(row.errors).toEqual([]);
  expect(row.request).toBeDefined();
  expect('payOn' in row.request!).toBe(false);
});

test('a past date, one more than a year ahead and a non-date are row errors naming the rule', () => {
  const rules = (cell: string) => load(cell).errors.map((e) => [e.column, e.rule, e.message]);
  expect(rules('25.11.2026')).toEqual([
    ['pay_on', 'pay_on_past', 'pay-on date 2026-11-25 is in the past (today is 2026-11-26, Moscow time)'],
  ]);
  expect(rules('2027-11-26')).toEqual([]);
  expect(rules('2027-11-27')).toEqual([
    [
      'pay_on',
      'pay_on_too_far',
      'pay-on date 2027-11-27 is more than a year ahead: the latest allowed is 2027-11-26',
    ],
  ]);
  expect(rules('30.02.2027').map((r) => r[1])).toEqual(['pay_on_format']);
  expect(rules('next friday').map((r) => r[1])).toEqual(['pay_on_format']);
  expect(load('25.11.2026').request).toBeUndefined();
});

test('Moscow time: the day starts at 21:00 UTC the day before, and a row wakes then', () => {
  expect(moscowDate(Date.parse('2026-11-26T20:59:59Z'))).toBe('2026-11-26');
  expect(moscowDate(Date.parse('2026-11-26T21:00:00Z'))).toBe('2026-11-27');
  expect(new Date(payOnWakeMs('2026-12-05')).toISOString()).toBe('2026-12-04T21:00:00.000Z');
  expect(lastPayOn('2028-02-29')).toBe('2029-02-28');
  expect(readPayOn('2026-13-01')).toBeUndefined();
});

test('a file holds at most 10 000 dated rows, the same whether read whole or as a stream', async () => {
  const { streamBatch } = await import('../../src/csv/stream-load');
  const { MAX_SCHEDULED_ROWS } = await import('../../src/csv/validate');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  expect(MAX_SCHEDULED_ROWS).toBe(10_000);
  // 10 001 dated rows, with undated ones between them, which never count.
  const rows: Row[] = [];
  for (let i = 0; i <= MAX_SCHEDULED_ROWS; i++) {
    rows.push({ ...cardRow({ reference: `d-${i}` }), pay_on: '05.12.2026' } as Row);
    if (i % 1000 === 0) rows.push({ ...cardRow({ reference: `now-${i}` }), pay_on: '' } as Row);
  }
  const bytes = utf8(csvText(rows, { header: [...HEADER, 'pay_on'] }));
  // The header is row 1; the 10 001st dated row is the one before the last undated one.
  const lastRow = rows.length;
  const whole = loadBatch(bytes, { policy: 'whole-file', today: TODAY });
  expect(whole.rejected).toBe(true);
  const errors = whole.rows.flatMap((r) => r.errors).map((e) => [e.row, e.column, e.rule, e.message]);
  expect(errors).toEqual([
    [
      lastRow,
      'pay_on',
      'pay_on_too_many',
      'one file holds at most 10,000 rows with a pay-on date: split the file',
    ],
  ]);
  const partial = loadBatch(bytes, { policy: 'partial', today: TODAY });
  expect(partial.accepted.filter((r) => r.payOn)).toHaveLength(MAX_SCHEDULED_ROWS);
  expect(partial.accepted.filter((r) => !r.payOn)).toHaveLength(11);

  const file = join(mkdtempSync(join(tmpdir(), 'pay-on-many-')), 'many.csv');
  writeFileSync(file, bytes);
  const streamed = await streamBatch(file, { policy: 'whole-file', today: TODAY }, () => undefined);
  try {
    const got = [];
    for await (const e of streamed.errors()) got.push([e.row, e.column, e.rule]);
    expect([streamed.rejected, got]).toEqual([true, [[lastRow, 'pay_on', 'pay_on_too_many']]]);
  } finally {
    streamed.close();
  }
});
