import pino, { type Logger, type LoggerOptions } from 'pino';
import { loggerLevel } from './config/process';

/**
 * Keys whose values never reach a log line, wherever they sit in a logged object:
 * card and account numbers, security codes, phone numbers, passport data, keys and signatures.
 */
const SENSITIVE_KEYS = new Set(
  [
    'number',
    'card_number',
    'cardNumber',
    'number_hash',
    'security_code',
    'cvv',
    'cvc',
    'account',
    'account_number',
    'accountNumber',
    'contragent_account_number',
    'masked_account',
    'phone',
    'phone_number',
    'phoneNumber',
    'full_number',
    'short_number',
    'passport',
    'documents',
    'identity_document',
    'id_number',
    'series',
    'issuer_code',
    'division_code',
    // Added with the bank client: the rest of card, passport, birth and tax-number data it carries.
    'expiration_month',
    'expiration_year',
    'issuer',
    'issuer_date',
    'issue_date',
    'issued_by',
    'id_expiration_date',
    'birthday',
    'date_of_birth',
    'birthplace',
    'inn',
    'tax_reference',
    'payer_tax_number',
    'contragent_inn',
    'private_key',
    'privateKey',
    'privateKeyPem',
    'secret',
    'password',
    'token',
    'authorization',
    'x-partner-sign',
    'sign',
    'signature',
  ].map((k) => k.toLowerCase()),
);

export const REDACTED = '[redacted]';

/** Long digit runs (cards 13–19, phones 11, accounts 20) are masked even inside free text. Bank ids like ps_123 are left alone. */
const LONG_DIGITS = /(?<![A-Za-z_\d])(?:\d[ -]?){10,19}\d(?![\d])/g;

export function redactText(text: string): string {
  return text.replace(LONG_DIGITS, (m) => {
    const digits = m.replace(/\D/g, '');
    return `***${digits.slice(-4)}`;
  });
}

export function redactDeep(value: unknown, depth = 0): unknown {
  if (depth > 12) return '[depth]';
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack && redactText(value.stack),
    };
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SENSITIVE_KEYS.has(k.toLowerCase()) ? REDACTED : redactDeep(v, depth + 1);
    }
    return out;
  }
  return value;
}

export function loggerOptions(level: string = loggerLevel()): LoggerOptions {
  return {
    level,
    base: { service: 'payrun' },
    formatters: { log: (obj) => redactDeep(obj) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        const cleaned = args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as typeof args;
        return method.apply(this, cleaned);
      },
    },
  };
}

/** The one logger factory; every module takes a child of this instead of using console. */
export function createLogger(name: string, destination?: pino.DestinationStream, level?: string): Logger {
  return pino({ ...loggerOptions(level), name }, destination ?? pino.destination(2));
}

export type { Logger };
