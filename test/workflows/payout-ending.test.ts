/**
 * workflows/payout/ending.ts: how a payout that did not complete says what became of the money. The
 * batch, the look-ups and the CLI all read endings here; a misread one pays a reference twice or never.
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  ALREADY_PAID_TYPE,
  maskNumbers,
  NEEDS_ATTENTION_TYPE,
  NOT_PAID_STATES,
  notPaidType,
  readPayoutEnding,
  REFERENCE_CONFLICT_TYPE,
} from '../../workflows/payout/ending';
import { payoutStatus } from './fixtures';

const status = payoutStatus({ state: 'failed' });
const failure = (type: string, details?: unknown[]) =>
  ApplicationFailure.create({ message: type, type, nonRetryable: true, details });

describe('readPayoutEnding', () => {
  it.each(NOT_PAID_STATES)('reads payout_%s as not paid', (state) => {
    expect(notPaidType(state)).toBe(`payout_${state}`);
    expect(readPayoutEnding(failure(`payout_${state}`, [status]))).toEqual({ kind: 'not_paid', status });
  });

  it('reads payout_needs_attention as needing attention', () => {
    expect(NEEDS_ATTENTION_TYPE).toBe('payout_needs_attention');
    expect(readPayoutEnding(failure('payout_needs_attention', [status]))).toEqual({
      kind: 'needs_attention',
      status,
    });
  });

  it.each([ALREADY_PAID_TYPE, REFERENCE_CONFLICT_TYPE])('reads %s as paid by the earlier run', (type) => {
    expect(readPayoutEnding(failure(type, [status]))).toEqual({ kind: 'paid', status });
  });

  it('reads the first detail only', () => {
    const other = payoutStatus({ reference: 'r-2' });
    expect(readPayoutEnding(failure('payout_failed', [status, other]))?.status).toBe(status);
  });

  it('reads a plain object of the same shape (a failure decoded by a client)', () => {
    expect(readPayoutEnding({ type: 'payout_cancelled', details: [status] })).toEqual({
      kind: 'not_paid',
      status,
    });
  });

  it.each([
    ['a type that is not ours', failure('payout_succeeded', [status])],
    ['a paid state as type', failure('payout_credited', [status])],
    ['an unknown type', failure('TypeError', [status])],
    ['no details', failure('payout_failed')],
    ['empty details', failure('payout_failed', [])],
    ['a detail that is not an object', failure('payout_failed', ['failed'])],
    ['a null detail', failure('payout_failed', [null])],
    ['details that are not a list', { type: 'payout_failed', details: status }],
    ['a type that is not a string', { type: 42, details: [status] }],
    ['no type', { details: [status] }],
    ['a plain Error', new Error('payout_failed')],
    ['undefined', undefined],
    ['null', null],
    ['a string', 'payout_failed'],
  ])('is undefined for %s', (_what, f) => {
    expect(readPayoutEnding(f)).toBeUndefined();
  });
});

describe('maskNumbers', () => {
  it('keeps only the last four of every run of ten or more digits', () => {
    expect(maskNumbers('card 2200000000000012 declined')).toBe('card ************0012 declined');
    expect(maskNumbers('account 40817810099910004312, phone 79123456789')).toBe(
      'account ****************4312, phone *******6789',
    );
    expect(maskNumbers('inn 7707083893')).toBe('inn ******3893');
  });

  it('leaves shorter numbers alone (amounts, codes, BIK)', () => {
    expect(maskNumbers('amount 150000 kopecks, BIK 044525225, code 123456789')).toBe(
      'amount 150000 kopecks, BIK 044525225, code 123456789',
    );
    expect(maskNumbers('')).toBe('');
  });
});

describe('maskNumbers and identifiers', () => {
  it("leaves an identifier's hex alone: a batch id, a bank session id", () => {
    const text =
      'Пакет batch-a7b5f60841095857 отправлен; batch-0123456789abcdef-retry-1; ps_9f60841095857ab1';
    expect(maskNumbers(text)).toBe(text);
  });
  it('still masks a number that stands alone or follows a word and a dash', () => {
    expect(maskNumbers('карта 2200000000000012, счёт:40817810099910004312.')).toBe(
      'карта ************0012, счёт:****************4312.',
    );
    expect(maskNumbers('card-2200000000000012; (2200000000000012)')).toBe(
      'card-************0012; (************0012)',
    );
  });
});

describe('maskNumbers with separators', () => {
  it('masks a phone written with spaces, brackets and dashes, keeping its last four digits', () => {
    expect(maskNumbers('phone +7 (912) 345-67-89 unknown')).toBe('phone +* (***) ***-67-89 unknown');
  });
  it('leaves dates, times and amounts alone', () => {
    const text = 'on 2026-11-22 10:15, amount 1 500 000,00 RUB';
    expect(maskNumbers(text)).toBe(text);
  });
});
