import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { failureReason, lookupReasonText, outcomeReason } from '../../src/i18n/row-reasons';
import { foreignWords } from '../harness/language';
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

// src/batch/services/lookup.ts words a closed run's verdict in English (the batch keeps it in its history);
// `payout status`, the console's payout page and the report say it from the catalogue, never as the bank's.
describe("a payout look-up's reason in the language set", () => {
  const moved = (why: string) => `the run ended terminated and ${why}: no money moved; it may be paid again`;

  it('a run that moved nothing, whose status cannot be replayed, or that ended unclean', () => {
    const why = 'it closed before any worker ran it (no workflow task started)';
    expect(lookupReasonText(moved(why), 'ru')).toBe(
      'запуск выплаты остановлен принудительно, и он закрылся прежде, чем его начал выполнять обработчик: ' +
        'деньги не переводились, выплату можно провести снова',
    );
    expect(lookupReasonText(moved(why), 'en')).toBe(moved(why));
    const lost = 'the run ended timed_out and its status cannot be replayed; its bank session is s-1';
    expect(lookupReasonText(lost, 'ru')).toBe(
      'запуск выплаты превысил свой срок, и его состояние не восстановить; его сессия в банке — s-1',
    );
    expect(lookupReasonText(lost, 'en')).toBe(lost);
    const unclean =
      'the payout workflow payout-r-1 ended terminated without a clean outcome; run `payrun payout reconcile r-1` to ask the bank';
    expect(lookupReasonText(unclean, 'ru')).toBe(
      'процесс выплаты payout-r-1 остановлен принудительно без ясного итога; спросите банк: payrun payout reconcile r-1',
    );
    expect(lookupReasonText(unclean, 'en')).toBe(unclean);
    expect(lookupReasonText('declined by the issuer bank', 'ru')).toBeUndefined();
  });

  it("a moved-nothing row is payrun's words in the report, not the bank's", () => {
    const o = {
      row: 2,
      reference: 'r-1',
      state: 'failed',
      errorCode: 'moved_nothing',
      reason: moved('it refused its input (invalid_input) before any activity'),
    } as BatchRowOutcome;
    expect(outcomeReason(o, 'ru')).not.toMatch(/Слова банка/);
    expect(foreignWords(outcomeReason(o, 'ru')!, 'ru')).toEqual([]);
  });

  // Reworded there and not here, a reason would reach accounting in English: every "why" a run that moved
  // nothing gives (src/batch/services/run-history.ts) has its Russian.
  it('every reason run-history.ts gives for a run that moved nothing is said in Russian', () => {
    const source = readFileSync(
      join(__dirname, '..', '..', 'src', 'batch', 'services', 'run-history.ts'),
      'utf8',
    );
    const whys = [...source.matchAll(/movedNothing: true,\s*why: '([^']+)'/g)].map((m) => m[1]!);
    expect(whys.length).toBeGreaterThanOrEqual(4);
    for (const why of whys) expect(foreignWords(lookupReasonText(moved(why), 'ru')!, 'ru')).toEqual([]);
  });
});
