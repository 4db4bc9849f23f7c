import { outcomeReason } from '../../src/i18n/row-reasons';
import { capRefusal } from '../../activities/scheduled';
import type { BatchRowOutcome } from '../../workflows/batch/contract';

// How a scheduled row that woke and ended unpaid reads in the report (activities/scheduled.ts words it).

const outcome = (errorCode: string, reason: string) =>
  ({ row: 2, reference: 'r', amount: 100, state: 'rejected', errorCode, reason }) as BatchRowOutcome;

test('the stop-list and a short deposit at wake are said again in the language set', () => {
  const short = outcome(
    'deposit_short',
    "the deposit held 5000 kopecks at wake, less than the row's 15000 kopecks",
  );
  expect(outcomeReason(short, 'ru')).toBe(
    'при пробуждении на депозите 50,00 ₽, меньше суммы строки 150,00 ₽; не выплачено',
  );
  expect(outcomeReason(short, 'en')).toBe(
    'at wake the deposit held 50,00 ₽, less than the row’s 150,00 ₽; not paid',
  );
  expect(outcomeReason(outcome('stop_list', 'the tax number is on the stop-list'), 'ru')).toBe(
    'ИНН внесён в стоп-лист, пока строка ждала своей даты; не выплачено',
  );
});

test('a cap passed while the row slept is said in the words every cap refusal uses, so it is translated', () => {
  const reason = capRefusal(150_000_00, {
    limit: 'yearly_cap',
    limitKopecks: 2_400_000_00,
    headroomKopecks: 0,
    year: 2027,
  });
  expect(reason).toMatchObject({ state: 'limit_exceeded', code: 'limit_exceeded' });
  const said = outcomeReason({ ...outcome('limit_exceeded', reason.reason), state: reason.state }, 'ru');
  expect(said).toContain('2027');
  expect(said).not.toContain('would pass');
});
