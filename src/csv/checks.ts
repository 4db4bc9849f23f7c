/**
 * Check digits and formats of Russian payment details. Pure functions on digit strings.
 */
import { t } from '../i18n';

/** Luhn check on a 13–19 digit card number (digits only). */
export function isLuhnValid(cardNumber: string): boolean {
  if (!/^\d{13,19}$/.test(cardNumber)) return false;
  let sum = 0;
  for (let i = 0; i < cardNumber.length; i++) {
    let d = cardNumber.charCodeAt(cardNumber.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const INN12_W11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_W12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

function innControlDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  weights.forEach((w, i) => (sum += w * (digits.charCodeAt(i) - 48)));
  return (sum % 11) % 10;
}

/**
 * An individual's 12-digit INN: digit 11 = (Σ w·d over digits 1–10, w = 7 2 4 10 3 5 9 4 6 8) mod 11 mod 10,
 * digit 12 = (Σ w·d over digits 1–11, w = 3 7 2 4 10 3 5 9 4 6 8) mod 11 mod 10; and the first two digits,
 * the region, are not 00 (no region has that code). `region` is only reported when the check digits
 * are right: with a mistyped check digit the region may be mistyped too, so the check digits speak first.
 */
export function checkInn12(inn: string): 'ok' | 'format' | 'checksum' | 'region' {
  if (!/^\d{12}$/.test(inn)) return 'format';
  if (
    innControlDigit(inn, INN12_W11) !== inn.charCodeAt(10) - 48 ||
    innControlDigit(inn, INN12_W12) !== inn.charCodeAt(11) - 48
  )
    return 'checksum';
  return inn.startsWith('00') ? 'region' : 'ok';
}

/** A 12-digit INN with the right check digits and a region other than 00 (see checkInn12). */
export function isValidInn12(inn: string): boolean {
  return checkInn12(inn) === 'ok';
}

const ACCOUNT_WEIGHTS = [7, 1, 3];

/**
 * The control key of a 20-digit account at a bank with a 9-digit BIK: the 3-digit bank part
 * (the BIK's last three digits, or "0" + BIK digits 5–6 when those are 000/001/002, an RKC)
 * followed by the account, weighted 7,1,3 repeating; the weighted sum must be 0 mod 10.
 */
export function isValidBankAccount(bik: string, account: string): boolean {
  if (!/^\d{9}$/.test(bik) || !/^\d{20}$/.test(account)) return false;
  const tail = bik.slice(6);
  const bankPart = tail === '000' || tail === '001' || tail === '002' ? `0${bik.slice(4, 6)}` : tail;
  const digits = bankPart + account;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(i) - 48) * ACCOUNT_WEIGHTS[i % 3]!;
  return sum % 10 === 0;
}

export type PhoneResult =
  { ok: true; phone: string } | { ok: false; rule: 'phone_format' | 'phone_starts_with_8'; message: string };

/**
 * "+7 (912) 345-67-89", "7 912 345 67 89", "79123456789" → "79123456789".
 * Spaces, brackets, dashes, dots and a leading + are formatting; anything else is an error.
 */
export function normalizePhone(input: string): PhoneResult {
  const digits = input
    .trim()
    .replace(/^\+/, '')
    .replace(/[\s\u00a0()\-.]/g, '');
  if (/^8\d{10}$/.test(digits)) {
    return {
      ok: false,
      rule: 'phone_starts_with_8',
      message: t('csv.phone_starts_with_8'),
    };
  }
  if (!/^7\d{10}$/.test(digits)) {
    return {
      ok: false,
      rule: 'phone_format',
      message: t('csv.phone_format'),
    };
  }
  return { ok: true, phone: digits };
}

export const REFERENCE_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Deliberately simple: one @, no spaces, a dot in the domain. */
export function isPlausibleEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email) && email.length <= 254;
}
