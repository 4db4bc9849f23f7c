import { checkInn12, isLuhnValid, isValidBankAccount, isValidInn12, normalizePhone } from '../../src/csv';
import {
  accountFor,
  ACCOUNT,
  BIK,
  CARD,
  CARD2,
  inn12,
  INN,
  luhnCard,
  RKC_ACCOUNT,
  RKC_BIK,
} from '../harness/csv-rows';
import { useLanguage } from '../harness/lang';

useLanguage('en'); // these tests check the English texts (PAYRUN_LANG=en); Russian is the default

describe('isLuhnValid', () => {
  it('accepts well-known test card numbers and generated ones', () => {
    expect(isLuhnValid('4111111111111111')).toBe(true);
    expect(isLuhnValid('5555555555554444')).toBe(true);
    expect(isLuhnValid('2200000000000004')).toBe(true);
    expect(isLuhnValid(CARD)).toBe(true);
    expect(isLuhnValid(CARD2)).toBe(true);
    expect(isLuhnValid(luhnCard('4', 13))).toBe(true);
    expect(isLuhnValid(luhnCard('6', 19))).toBe(true);
  });
  it('rejects a single mistyped digit and wrong lengths', () => {
    expect(isLuhnValid('4111111111111112')).toBe(false);
    const last = Number(CARD.slice(-1));
    expect(isLuhnValid(CARD.slice(0, -1) + ((last + 1) % 10))).toBe(false);
    expect(isLuhnValid(luhnCard('4', 12))).toBe(false);
    expect(isLuhnValid(luhnCard('4', 20))).toBe(false);
    expect(isLuhnValid('4111 1111 1111 1111')).toBe(false);
  });
});

describe('isValidInn12', () => {
  it('accepts a real-format INN and generated ones', () => {
    expect(isValidInn12('500100732259')).toBe(true);
    expect(isValidInn12(INN)).toBe(true);
    expect(isValidInn12(inn12('7830002293'))).toBe(true);
  });
  it('rejects wrong check digits, lengths and region 00', () => {
    expect(isValidInn12('500100732258')).toBe(false);
    expect(isValidInn12('500100732269')).toBe(false);
    expect(isValidInn12('7707083893')).toBe(false); // a valid 10-digit (company) INN is not a person's
    expect(isValidInn12('000000000000')).toBe(false);
    expect(isValidInn12('50010073225a')).toBe(false);
  });
  it('checkInn12 tells a region-00 INN with right check digits from a check-digit failure', () => {
    const region00 = inn12('0077123456');
    expect(checkInn12(region00)).toBe('region');
    expect(isValidInn12(region00)).toBe(false);
    expect(checkInn12(region00.slice(0, 10) + ((Number(region00[10]) + 1) % 10) + region00[11])).toBe(
      'checksum',
    );
    expect(checkInn12('500100732259')).toBe('ok');
    expect(checkInn12('500100732258')).toBe('checksum');
    expect(checkInn12('7707083893')).toBe('format');
  });
});

describe('isValidBankAccount', () => {
  it('accepts the key computed from the last three BIK digits', () => {
    expect(ACCOUNT).not.toBe('40817810000000123456');
    expect(isValidBankAccount(BIK, ACCOUNT)).toBe(true);
  });
  it('uses "0" + BIK digits 5–6 for an RKC (BIK ending 000/001/002)', () => {
    expect(isValidBankAccount('044525000', '40101810045250010041')).toBe(true); // a real Treasury account at the Moscow RKC
    expect(isValidBankAccount(RKC_BIK, RKC_ACCOUNT)).toBe(true);
    for (const bik of ['044525001', '044525002']) {
      expect(isValidBankAccount(bik, accountFor(bik, '40817810000000777777'))).toBe(true);
    }
    // the same account judged by the last three digits instead would fail
    expect(isValidBankAccount('044525225', '40101810045250010041')).toBe(false);
  });
  it('rejects a changed digit and wrong lengths', () => {
    const changed = ACCOUNT.slice(0, 19) + ((Number(ACCOUNT[19]) + 1) % 10);
    expect(isValidBankAccount(BIK, changed)).toBe(false);
    expect(isValidBankAccount('44525225', ACCOUNT)).toBe(false);
    expect(isValidBankAccount(BIK, ACCOUNT.slice(1))).toBe(false);
  });
});

describe('normalizePhone', () => {
  it('strips formatting', () => {
    expect(normalizePhone('+7 (912) 345-67-89')).toEqual({ ok: true, phone: '79123456789' });
    expect(normalizePhone('7 912 345 67 89')).toEqual({ ok: true, phone: '79123456789' });
    expect(normalizePhone('79123456789')).toEqual({ ok: true, phone: '79123456789' });
  });
  it('rejects 8… with a hint and anything not 11 digits starting with 7', () => {
    expect(normalizePhone('8 (912) 345-67-89')).toMatchObject({ ok: false, rule: 'phone_starts_with_8' });
    expect(normalizePhone('8 (912) 345-67-89')).toMatchObject({ message: expect.stringContaining('+7') });
    expect(normalizePhone('9123456789')).toMatchObject({ ok: false, rule: 'phone_format' });
    expect(normalizePhone('+7 912 345 67 8')).toMatchObject({ ok: false, rule: 'phone_format' });
    expect(normalizePhone('+1 912 345 67 89')).toMatchObject({ ok: false, rule: 'phone_format' });
    expect(normalizePhone('+7 912 345 67 89 ext 2')).toMatchObject({ ok: false, rule: 'phone_format' });
  });
});
