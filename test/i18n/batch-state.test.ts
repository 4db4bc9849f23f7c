import { approvalReason } from '../../src/i18n/operator-answers';
import { shownState, stateLine, t } from '../../src/i18n';

const names = new Map([['maria', 'Мария Иванова']]);
const nameOf = (id: string) => names.get(id) ?? id;

describe('a batch state told truthfully', () => {
  it('a batch the worker has not judged yet is not paying', () => {
    const facts = { phase: 'paying', approval: { required: true } };
    expect(shownState(facts)).toBe('checking');
    expect(stateLine(facts, 'ru')).not.toContain('идут выплаты');
  });

  it('pays once paying was allowed', () => {
    expect(stateLine({ phase: 'paying', approval: { required: true, by: 'maria, oleg' } }, 'ru')).toBe(
      'идут выплаты',
    );
  });

  it('one of two approvals: says so, who, and that another approver is awaited', () => {
    const facts = {
      phase: 'awaiting_approval',
      approval: { required: true, needed: 2, approvedBy: ['maria'] },
    };
    expect(stateLine(facts, 'ru', nameOf)).toBe(
      'ждёт утверждения: утверждений: 1 из 2, ждём другого утверждающего (утвердил(и): Мария Иванова)',
    );
    expect(stateLine(facts, 'en', nameOf)).toBe(
      'awaiting approval: approvals: 1 of 2, waiting for another approver (approved by Мария Иванова)',
    );
  });

  it('none in yet: counts zero of what is needed', () => {
    expect(stateLine({ phase: 'awaiting_approval', approval: { needed: 2, approvedBy: [] } }, 'ru')).toBe(
      'ждёт утверждения: утверждений: 0 из 2',
    );
  });

  it('a cancelled batch says отменён, by its commands or by its final', () => {
    expect(stateLine({ phase: 'done', commands: [{ command: 'cancel' }] }, 'ru')).toBe('отменён');
    expect(stateLine({ phase: 'done', cancelled: true }, 'ru')).toBe('отменён');
    expect(stateLine({ phase: 'done', cancelled: true }, 'en')).toBe('cancelled');
    expect(stateLine({ phase: 'done', commands: [{ command: 'pause' }] }, 'ru')).toBe('завершён');
  });

  it('paused, awaiting funds and cancelling keep their names', () => {
    expect(stateLine({ phase: 'paused' }, 'ru')).toBe('приостановлен');
    expect(stateLine({ phase: 'awaiting_funds' }, 'ru')).toBe('ждёт пополнения депозита');
    expect(stateLine({ phase: 'cancelling' }, 'ru')).toBe('отменяется');
  });
});

describe('the summary counts invalid rows in plain words', () => {
  it('says «строк с ошибками: 19», not «ошибка в строке 19»', () => {
    const part = { count: 19, kopecks: 100, unreadable: 0 };
    expect(t('summary.part', { state: 'invalid', part }, 'ru')).toBe('строк с ошибками: 19 (1,00 ₽)');
    expect(t('summary.part', { state: 'invalid', part }, 'en')).toBe('invalid rows: 19 (1,00 ₽)');
  });

  it('a rejected file says it was rejected and why, not a sum of zero', () => {
    const said = t('check.rejected', { invalid: 19, fileErrors: 0, valid: 4 }, 'ru');
    expect(said).toMatch(/^Файл отклонён: строк с ошибками: 19\. Ничего не будет выплачено/);
    expect(said).not.toContain('0,00 ₽');
  });
});

describe("the worker's approval reason in Russian", () => {
  it.each([
    ['the policy requires approval of submitted files', 'правила требуют утверждения отправленных файлов'],
    ['the policy requires approval of dropped files', 'правила требуют утверждения файлов из папки'],
    ['its submitter asked for approval', 'отправитель попросил утверждения'],
  ])('%s', (because, said) => {
    expect(approvalReason(because, 'ru')).toBe(said);
    expect(approvalReason(because, 'en')).toBe(because);
  });

  it('keeps the daily-limit tail, in Russian too', () => {
    const because =
      "the policy requires approval of submitted files; maria's approvals alone on 2026-11-26 would total 900 000,00 ₽ with this file (…), more than the daily limit of 500 000,00 ₽: 2 approvers needed";
    expect(approvalReason(because, 'ru')).toMatch(
      /^правила требуют утверждения отправленных файлов; одобрения maria/,
    );
  });
});
