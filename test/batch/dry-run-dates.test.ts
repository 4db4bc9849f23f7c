import { dateLinesText, planByDate } from '../../src/batch/commands/dry-run-dates';

// The dry run per pay-on date (issue 42): what leaves on each date, and whether today's deposit holds
// everything due up to it.

test('rows are summed per date, now first, and the deposit is held against the running total', () => {
  const rows = [
    { amount: 100_00, payOn: '2026-12-20' },
    { amount: 50_00 },
    { amount: 200_00, payOn: '2026-12-05' },
    { amount: 300_00, payOn: '2026-12-20' },
  ];
  expect(planByDate(rows, 400_00)).toEqual([
    { rows: 1, kopecks: 50_00, cumulative: 50_00, holds: true },
    { payOn: '2026-12-05', rows: 1, kopecks: 200_00, cumulative: 250_00, holds: true },
    { payOn: '2026-12-20', rows: 2, kopecks: 400_00, cumulative: 650_00, holds: false },
  ]);
  expect(dateLinesText(planByDate(rows, 400_00), 'ru')).toEqual([
    'по датам выплаты (депозит сейчас против нарастающего итога):',
    '  сразу: 1 строка, 50,00 ₽; с предыдущими 50,00 ₽ — депозита хватает',
    '  05.12.2026: 1 строка, 200,00 ₽; с предыдущими 250,00 ₽ — депозита хватает',
    '  20.12.2026: 2 строки, 400,00 ₽; с предыдущими 650,00 ₽ — депозита не хватает: пополните до этой даты',
  ]);
});

test('a file with no pay_on reads as before: no per-date lines at all', () => {
  expect(planByDate([{ amount: 1 }, { amount: 2 }], 0)).toEqual([]);
  expect(dateLinesText([], 'en')).toEqual([]);
});
