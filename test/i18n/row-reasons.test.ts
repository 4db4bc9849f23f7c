import { failureReason, outcomeReason } from '../../src/i18n/row-reasons';
import type { BatchRowOutcome } from '../../workflows/batch/contract';

/** The reasons a refused reservation gives (activities/payout-runs.ts), as the report and `batch status` say them. */
const refused = (reason: string): BatchRowOutcome =>
  ({
    row: 2,
    reference: 'r-1',
    state: 'limit_exceeded',
    errorCode: 'limit_exceeded',
    reason,
  }) as BatchRowOutcome;

describe('a limit_exceeded reason in the language set', () => {
  it('the yearly cap, in Russian by default and in English', () => {
    const o = refused(
      '2 500,00 ₽ would pass the self-employed income cap for 2026, 2 400 000,00 ₽: 1 234,56 ₽ left; nothing was sent to the bank',
    );
    expect(outcomeReason(o, 'ru')).toBe(
      '2 500,00 ₽ превысит лимит дохода самозанятого за 2026 год 2 400 000,00 ₽: осталось 1 234,56 ₽ (limit_exceeded)',
    );
    expect(outcomeReason(o, 'en')).toBe(
      '2 500,00 ₽ would pass the self-employed income cap for 2026, 2 400 000,00 ₽: 1 234,56 ₽ left (limit_exceeded)',
    );
  });

  it('the monthly and the per-payout limit', () => {
    expect(
      outcomeReason(
        refused(
          '4 000,00 ₽ would pass the monthly limit of 10 000,00 ₽: 3 531,73 ₽ left; nothing was sent to the bank',
        ),
        'ru',
      ),
    ).toBe('4 000,00 ₽ превысит месячный лимит 10 000,00 ₽: осталось 3 531,73 ₽ (limit_exceeded)');
    expect(
      outcomeReason(
        refused(
          '1 500,00 ₽ would pass the per-payout limit of 1 000,00 ₽: 1 000,00 ₽ left; nothing was sent to the bank',
        ),
        'ru',
      ),
    ).toBe('1 500,00 ₽ превысит лимит одной выплаты 1 000,00 ₽ (limit_exceeded)');
  });

  it('a reason in another shape is shown as it was written', () => {
    expect(outcomeReason(refused('would pass the per_month limit'), 'ru')).toBe(
      'would pass the per_month limit',
    );
  });

  it('a failure batch status and the console list reads the same (its code as the outcome error code)', () => {
    const reason =
      '1 500,00 ₽ would pass the per-payout limit of 1 000,00 ₽: 1 000,00 ₽ left; nothing was sent to the bank';
    const f = { row: 3, reference: 'r-3', state: 'limit_exceeded' as const, code: 'limit_exceeded', reason };
    expect(failureReason(f, 'ru')).toBe(
      '1 500,00 ₽ превысит лимит одной выплаты 1 000,00 ₽ (limit_exceeded)',
    );
    expect(failureReason({ ...f, state: 'rejected', code: 'not_linked', reason: 'x' }, 'ru')).toMatch(
      /[а-я]/,
    );
  });
});
