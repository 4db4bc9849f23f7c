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
