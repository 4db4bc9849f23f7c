import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandAnswer } from '../../src/i18n/operator-answers';

const ROOT = join(__dirname, '..', '..');

describe("a command's answer in the language set", () => {
  it.each([
    [
      'approved by oleg (1 of 2): waiting for another approver',
      'одобрено (oleg, 1 из 2): нужно одобрение ещё одного человека',
    ],
    ['approved by oleg (2 of 2): paying may start', 'одобрено (oleg, 2 из 2): выплата может начаться'],
    [
      'rejected by anna: wrong month; this file is not paid by any batch until it is approved again',
      'отклонено (anna: wrong month); этот файл не выплатит ни один пакет, пока его снова не одобрят',
    ],
    [
      'rejected by anna; this file is not paid by any batch until it is approved again',
      'отклонено (anna); этот файл не выплатит ни один пакет, пока его снова не одобрят',
    ],
    ['nothing to reject: the batch is done', 'нечего отклонять: пакет завершён'],
    [
      'nothing is awaiting approval: paying was allowed (oleg)',
      'одобрения ничто не ждёт: выплата уже разрешена (oleg)',
    ],
    ['approval is not required for this batch', 'этот пакет не требует одобрения'],
    ['refused: oleg has already approved this batch', 'отказано: oleg уже одобрил(а) этот пакет'],
    [
      'paused: no new payouts start; those in flight finish',
      'приостановлен: новые выплаты не начинаются, начатые завершатся',
    ],
    ['resumed', 'возобновлён'],
    ['nothing to cancel: the payout ended succeeded', 'нечего отменять: выплата завершилась (выплачено)'],
    [
      'too late to cancel: the payout was confirmed (confirming)',
      'отменить уже нельзя: выплата подтверждена (подтверждается)',
    ],
    [
      'too late to cancel: the confirm may be under way; ask again to see',
      'отменить сейчас нельзя: подтверждение, возможно, уже отправлено; спросите ещё раз',
    ],
    [
      'anna submitted this batch: an approver must be someone else',
      'anna отправил(а) этот пакет: одобрить его должен другой человек',
    ],
    // The worker's refusals of `payrun reconcile resolve` (src/reconcile/day.ts).
    [
      'no difference outside:st-1 on account 40702810900000000001 (payrun reconcile status lists them)',
      'на счёте 40702810900000000001 нет расхождения outside:st-1 (список открытых покажет payrun reconcile status)',
    ],
    ['difference outside:st-1 is already resolved', 'расхождение outside:st-1 уже закрыто'],
    ['--reason: say why the difference is resolved', '--reason: напишите, почему расхождение закрыто'],
  ])('%s', (english, russian) => {
    expect(commandAnswer(english, 'ru')).toBe(russian);
    expect(commandAnswer(english, 'en')).toBe(english);
  });

  it('an answer of another shape is shown as given', () => {
    expect(commandAnswer('the bank is on fire', 'ru')).toBe('the bank is on fire');
  });

  // The answers are written in the workflows; one reworded there and not here would reach accounting in
  // English. Every answer literal the command handlers return, its ${…} filled in, must be said in Russian.
  it.each(['workflows/batch/run.ts', 'workflows/payout/run-state.ts'])(
    'every answer %s returns has its Russian',
    (file) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      const literals = [...source.matchAll(/(?:return|\?|:) *(['`])((?:(?!\1)[^$\n]|\$\{[^{}`]*\})*)\1/g)]
        .map((m) => m[2]!)
        .filter((text) =>
          /^(nothing|approval|refused|approved|already|paused|not paused|resumed|cancel|too late)/.test(text),
        )
        .filter((text) => text.includes(' ') || text === 'resumed' || text === 'approved')
        // A filling every shape takes: a decision, a phase or state word, a name.
        .map((text) => text.replace('${count}', '1 of 2').replace(/\$\{[^{}]*\}/g, 'approve'));
      expect(literals.length).toBeGreaterThanOrEqual(file.includes('batch') ? 10 : 7);
      for (const text of literals) expect([text, commandAnswer(text, 'ru')]).not.toEqual([text, text]);
    },
  );
});
