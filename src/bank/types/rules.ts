import { z } from 'zod';
import {
  chars,
  FPS_DESCRIPTION_MAX,
  isAccountNumber,
  isBik,
  isCardNumber,
  isPhone7,
  isValidInn,
  isValidInn12,
} from '../../domain';
import { isPositiveKopecks, sameCurrency } from '../../money';

/**
 * The field rules the spec states, each with a short rule name that BankRequestValidationError
 * reports (the message of a zod issue is the rule name; the value itself is never echoed).
 */
/** Any non-integer, non-positive or unsafe value (a string from a CSV too) breaks the same rule. */
export const kopecks = z.custom<number>(isPositiveKopecks, 'positive_integer_kopecks');

export const currency = z.string().regex(/^[A-Za-z]{3}$/, 'iso4217_code');

/** `rub`, compared case-insensitively as the spec allows. */
export const rub = currency.refine((c) => sameCurrency(c, 'rub'), 'currency_rub');

export const notBlank = z.string().refine((s) => s.trim().length > 0, 'not_blank');

export const digits = (n: number) => z.string().regex(new RegExp(`^\\d{${n}}$`), `digits_${n}`);

/** Russian mobile number as the bank writes it: 11 digits, leading 7, no plus. */
export const phone7 = z.string().refine(isPhone7, 'phone_11_digits_starting_with_7');

export const email = z.email('email');

export const httpUrl = z.url({ protocol: /^https?$/, error: 'url' });

export const countryAlpha2 = z.string().regex(/^[A-Za-z]{2}$/, 'iso3166_alpha2');
export const countryAlpha3 = z.string().regex(/^[A-Za-z]{3}$/, 'iso3166_alpha3');

/** Up to 140 characters (code points, as a person counts them, and as the batch check does): the FPS description limit. */
export const fpsDescription = z
  .string()
  .refine((s) => chars(s) <= FPS_DESCRIPTION_MAX, `max_length_${FPS_DESCRIPTION_MAX}`);

/** A card number: 13–19 digits with the Luhn check digit (src/domain/rules.ts; decision D23). */
export const cardNumber = z.string().refine(isCardNumber, 'card_number_13_19_digits_luhn');

/** A BIC (БИК) and an account number (src/domain/rules.ts). */
export const bik = z.string().refine(isBik, 'digits_9');
export const accountNumber = z.string().refine(isAccountNumber, 'digits_20');

/** An INN in a `ru` block (an organisation's 10 digits or a person's 12), check digits right. */
export const inn = z
  .string()
  .regex(/^(\d{10}|\d{12})$/, 'digits_10_or_12')
  .refine(isValidInn, 'inn_check_digits');

export const isoDate = z.string().refine((s) => parseIsoDate(s) !== undefined, 'date_yyyy_mm_dd');

export const isoDateTime = z.iso.datetime({ offset: true, local: false, error: 'iso8601_datetime' });

export const ddmmyyyy = z.string().refine((s) => parseDdMmYyyy(s) !== undefined, 'date_dd_mm_yyyy');

/** DD.MM.YYYY and at least 18 years before today (UTC). */
export const adultBirthday = ddmmyyyy.refine((s) => isAdult(s, new Date()), 'age_over_18');

/** Self-employed people are individuals, whose INN is 12 digits (decision D8). */
export const taxReference = digits(12).refine(isValidInn12, 'inn_check_digits');

export function parseIsoDate(s: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return m ? calendarDate(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
}

export function parseDdMmYyyy(s: string): Date | undefined {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(s);
  return m ? calendarDate(Number(m[3]), Number(m[2]), Number(m[1])) : undefined;
}

function calendarDate(year: number, month: number, day: number): Date | undefined {
  const d = new Date(Date.UTC(year, month - 1, day));
  const real = d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
  return real ? d : undefined;
}

export function isAdult(birthday: string, today: Date): boolean {
  const born = parseDdMmYyyy(birthday);
  if (!born) return false;
  const eighteenth = new Date(Date.UTC(born.getUTCFullYear() + 18, born.getUTCMonth(), born.getUTCDate()));
  return eighteenth.getTime() <= today.getTime();
}
