/**
 * Check digits and formats of Russian payment details. Pure functions on digit strings.
 */
import { isPhone7 } from '../domain/rules';
import { t } from '../i18n';

/** The rules themselves live in src/domain/rules.ts; the names the CSV has always exported stay. */
export {
  checkInn12,
  isCardNumber as isLuhnValid,
  isPlausibleEmail,
  isValidBankAccount,
  isValidInn12,
} from '../domain/rules';

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
  if (!isPhone7(digits)) {
    return {
      ok: false,
      rule: 'phone_format',
      message: t('csv.phone_format'),
    };
  }
  return { ok: true, phone: digits };
}
