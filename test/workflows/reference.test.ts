/**
 * workflows/shared/reference.ts: a reference belongs to one payout. What differs between an earlier payout and
 * a row reusing its reference is named by field, and never shows a value (cards, accounts, INNs, phones).
 */
import type { PayoutMethod } from '../../src/domain';
import type { PayoutStatus } from '../../workflows/payout/contract';
import { referenceDifferences } from '../../workflows/shared/reference';
import {
  ACCOUNT,
  BIK,
  FPS_BANK,
  INN,
  OTHER_CARD,
  OTHER_INN,
  PHONE,
  SECRETS,
  bankAccount,
  card,
  fps,
} from './fixtures';

const AMOUNT = 150_000;
const payee = (method: PayoutMethod, taxReference = INN): PayoutStatus['payee'] => ({ taxReference, method });
const earlier = (method: PayoutMethod, amount = AMOUNT) => ({ amount, payee: payee(method) });

function differences(...args: Parameters<typeof referenceDifferences>): string[] {
  const out = referenceDifferences(...args);
  for (const s of SECRETS) expect(out.join(' ')).not.toContain(s);
  return out;
}

describe('referenceDifferences', () => {
  it.each([card, bankAccount, fps])('is empty for the same payee and amount ($type)', (method) => {
    expect(differences(earlier(method), { amount: AMOUNT, payee: payee({ ...method }) })).toEqual([]);
  });

  it('names the amount with both kopeck figures (amounts are not personal data)', () => {
    expect(differences(earlier(card), { amount: 99_00, payee: payee(card) })).toEqual([
      'amount (150000 vs 9900 kopecks)',
    ]);
  });

  it('names the tax number without showing it', () => {
    expect(differences(earlier(card), { amount: AMOUNT, payee: payee(card, OTHER_INN) })).toEqual([
      'recipient tax number (INN)',
    ]);
  });

  it('names the card number without showing it', () => {
    const other: PayoutMethod = { type: 'card', cardNumber: OTHER_CARD };
    expect(differences(earlier(card), { amount: AMOUNT, payee: payee(other) })).toEqual(['card number']);
  });

  it.each([
    ['BIK', { type: 'bank_account', bik: '044525974', account: ACCOUNT }],
    ['account', { type: 'bank_account', bik: BIK, account: '40817810000000000001' }],
  ] as const)('names the bank account when the %s differs', (_field, method) => {
    expect(differences(earlier(bankAccount), { amount: AMOUNT, payee: payee(method) })).toEqual([
      'bank account (BIK or account number)',
    ]);
  });

  it.each([
    ['phone', { type: 'fps', phone: '79000000000', bankId: FPS_BANK }],
    ['bank', { type: 'fps', phone: PHONE, bankId: '100000000004' }],
  ] as const)('names the FPS details when the %s differs', (_field, method) => {
    expect(differences(earlier(fps), { amount: AMOUNT, payee: payee(method) })).toEqual([
      'FPS phone or bank',
    ]);
  });

  it('names the method types, not their details, when the method changed', () => {
    expect(differences(earlier(card), { amount: AMOUNT, payee: payee(fps) })).toEqual([
      'payment method (card vs fps)',
    ]);
    expect(differences(earlier(bankAccount), { amount: AMOUNT, payee: payee(card) })).toEqual([
      'payment method (bank_account vs card)',
    ]);
  });

  it('lists every difference, amount first', () => {
    const other: PayoutMethod = { type: 'card', cardNumber: OTHER_CARD };
    expect(differences(earlier(card, 1), { amount: AMOUNT, payee: payee(other, OTHER_INN) })).toEqual([
      'amount (1 vs 150000 kopecks)',
      'recipient tax number (INN)',
      'card number',
    ]);
  });

  it('says so when the earlier payout does not record its payee', () => {
    expect(differences({ amount: AMOUNT }, { amount: AMOUNT, payee: payee(card) })).toEqual([
      'payee (the earlier payout does not record it)',
    ]);
    expect(differences({ amount: 1 }, { amount: AMOUNT, payee: payee(card) })).toEqual([
      'amount (1 vs 150000 kopecks)',
      'payee (the earlier payout does not record it)',
    ]);
  });
});
