/**
 * One data row → a PayoutRequest or the list of everything wrong with it. Every error names the
 * row (as a spreadsheet numbers it), the column and the rule. Messages never echo card, account or phone numbers.
 */
import { MoneyFormatError, parseKopecks, rublesToKopecks } from '../money';
import {
  isLuhnValid,
  isPlausibleEmail,
  isValidBankAccount,
  isValidInn12,
  normalizePhone,
  REFERENCE_PATTERN,
} from './checks';
import { METHOD_ALIASES, METHOD_FIELDS, YES_NO, type Column } from './format';
import type { AmountColumn, BatchRow, PayoutMethod, PayoutRequest, RowError } from './types';

export const STOP_LIST_MESSAGE =
  'tax number is on the stop-list (e.g. a former employee; the law forbids paying them as self-employed)';

export const FPS_DESCRIPTION_MAX = 140;

export interface RowContext {
  index: Partial<Record<Column, number>>;
  amountColumn: AmountColumn;
  headerLength: number;
  stopList?: ReadonlySet<string>;
}

export interface RowOutcome {
  request?: PayoutRequest;
  errors: RowError[];
  /** The amount when it could be read (even if the row is otherwise invalid); feeds the control total. */
  kopecks: number | null;
}

/** Spreadsheets write long numbers with spaces or no-break spaces ("4276 1234 5678 9012"). */
const digitsOnly = (text: string): string => text.replace(/[\s\u00a0\u202f-]/g, '');

export function readAmount(
  text: string,
  column: AmountColumn,
): { kopecks: number } | { rule: string; message: string } {
  try {
    const kopecks = column === 'amount' ? rublesToKopecks(text) : parseKopecks(text);
    if (kopecks <= 0) return { rule: 'amount_positive', message: `amount "${text.trim()}" must be positive` };
    return { kopecks };
  } catch (e) {
    if (!(e instanceof MoneyFormatError)) throw e;
    if (e.rule === 'more than two decimals') {
      return { rule: 'amount_decimals', message: `amount "${text.trim()}" has more than two decimals` };
    }
    const unit = column === 'amount' ? 'rubles, like 1 234,56' : 'whole kopecks, like 123456';
    return { rule: 'amount_format', message: `amount "${text.trim()}" is not ${unit} (${e.rule})` };
  }
}

export function validateRow(cells: readonly string[], row: number, ctx: RowContext): RowOutcome {
  const errors: RowError[] = [];
  const fail = (column: string | null, rule: string, message: string): void => {
    errors.push({ row, column, rule, message });
  };
  const cell = (column: Column): string => {
    const i = ctx.index[column];
    return i === undefined ? '' : (cells[i] ?? '').trim();
  };
  const required = (column: Column, what: string): string => {
    const value = cell(column);
    if (!value) fail(column, 'required', `${what} is blank`);
    return value;
  };

  if (cells.length > ctx.headerLength) {
    fail(
      null,
      'column_count',
      `row has ${cells.length} cells but the header has ${ctx.headerLength}; an unquoted delimiter inside a value (e.g. a decimal comma in a comma-separated file) shifts the columns`,
    );
  }

  const reference = required('reference', 'payout reference');
  if (reference && !REFERENCE_PATTERN.test(reference)) {
    fail(
      'reference',
      'reference_format',
      'payout reference must be 1–64 characters of latin letters, digits and . _ : -',
    );
  }
  const lastName = required('last_name', 'last name');
  const firstName = required('first_name', 'first name');
  const middleName = cell('middle_name');

  const inn = digitsOnly(required('inn', 'tax number (INN)'));
  if (inn) {
    if (!/^\d{12}$/.test(inn)) fail('inn', 'inn_format', 'tax number (INN) of a person must be 12 digits');
    else if (!isValidInn12(inn)) fail('inn', 'inn_checksum', 'tax number (INN) fails its check digits');
    else if (ctx.stopList?.has(inn)) fail('inn', 'stop_list', STOP_LIST_MESSAGE);
  }

  const methodText = required('method', 'payout method');
  const methodType = methodText ? METHOD_ALIASES[methodText.toLowerCase()] : undefined;
  if (methodText && !methodType) {
    fail(
      'method',
      'method_unknown',
      `payout method "${methodText}" is unknown; use card, bank_account or fps`,
    );
  }
  let method: PayoutMethod | undefined;
  if (methodType) method = readMethod(methodType, cell, fail);

  let kopecks: number | null = null;
  const amountText = required(ctx.amountColumn, 'amount');
  if (amountText) {
    const amount = readAmount(amountText, ctx.amountColumn);
    if ('kopecks' in amount) kopecks = amount.kopecks;
    else fail(ctx.amountColumn, amount.rule, amount.message);
  }

  const currency = required('currency', 'currency');
  if (currency && currency.toLowerCase() !== 'rub') {
    fail('currency', 'currency_unknown', `currency "${currency}" is not supported; only RUB`);
  }

  const serviceName = required('service_name', 'service name (for the receipt)');
  const description = cell('description');
  if (methodType === 'fps' && [...description].length > FPS_DESCRIPTION_MAX) {
    fail(
      'description',
      'description_length',
      `description has ${[...description].length} characters; FPS allows at most ${FPS_DESCRIPTION_MAX}`,
    );
  }

  const email = cell('email');
  if (email && !isPlausibleEmail(email))
    fail('email', 'email_format', `email "${email}" is not a valid address`);

  const metadataText = cell('metadata');
  let metadata: PayoutRequest['metadata'];
  if (metadataText.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(metadataText);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        metadata = parsed as Record<string, unknown>;
      else fail('metadata', 'metadata_json', 'metadata starting with { must be a JSON object');
    } catch (e) {
      fail(
        'metadata',
        'metadata_json',
        `metadata starts with { but is not valid JSON: ${(e as Error).message}`,
      );
    }
  } else if (metadataText) metadata = metadataText;

  const selfEmployedText = cell('self_employed');
  const selfEmployed = selfEmployedText ? YES_NO[selfEmployedText.toLowerCase()] : true;
  if (selfEmployed === undefined) {
    fail('self_employed', 'self_employed_value', `self_employed "${selfEmployedText}" must be yes or no`);
  }

  if (errors.length > 0 || !method || kopecks === null || selfEmployed === undefined)
    return { errors, kopecks };
  const request: PayoutRequest = {
    reference,
    recipient: {
      lastName,
      firstName,
      ...(middleName && { middleName }),
      taxReference: inn,
      ...(email && { email }),
    },
    method,
    amount: kopecks,
    currency: 'rub',
    serviceName,
    ...(description && { description }),
    ...(metadata !== undefined && { metadata }),
    selfEmployed,
  };
  return { request, errors, kopecks };
}

function readMethod(
  type: 'card' | 'bank_account' | 'fps',
  cell: (column: Column) => string,
  fail: (column: string | null, rule: string, message: string) => void,
): PayoutMethod | undefined {
  const missing = METHOD_FIELDS[type].filter((column) => !cell(column));
  for (const column of missing)
    fail(column, 'method_fields', `payout method ${type} needs ${column}, which is blank`);
  if (missing.length > 0) return undefined;

  if (type === 'card') {
    const cardNumber = digitsOnly(cell('card_number'));
    if (!/^\d{13,19}$/.test(cardNumber)) {
      const hint = /e\+?\d/i.test(cardNumber)
        ? ' (the spreadsheet turned it into a number like 4.27E+15; format the column as text)'
        : '';
      fail('card_number', 'card_length', `card number must be 13–19 digits${hint}`);
      return undefined;
    }
    if (!isLuhnValid(cardNumber)) {
      fail('card_number', 'card_luhn', 'card number fails the Luhn check (a digit is mistyped)');
      return undefined;
    }
    return { type, cardNumber };
  }
  if (type === 'bank_account') {
    const bik = digitsOnly(cell('bik'));
    const account = digitsOnly(cell('account'));
    let ok = true;
    if (!/^\d{9}$/.test(bik)) {
      const hint = /^\d{8}$/.test(bik) ? ' (the leading 0 was probably dropped by the spreadsheet)' : '';
      fail('bik', 'bik_format', `BIK must be 9 digits${hint}`);
      ok = false;
    }
    if (!/^\d{20}$/.test(account)) {
      fail('account', 'account_format', 'account number must be 20 digits');
      ok = false;
    }
    if (ok && !isValidBankAccount(bik, account)) {
      fail('account', 'account_key', 'account number does not match the BIK (control key check failed)');
      ok = false;
    }
    return ok ? { type, bik, account } : undefined;
  }
  const phone = normalizePhone(cell('phone'));
  const bankId = cell('bank_id');
  let ok = true;
  if (!phone.ok) {
    fail('phone', phone.rule, phone.message);
    ok = false;
  }
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(bankId)) {
    fail(
      'bank_id',
      'bank_id_format',
      "FPS bank id must be the bank's member id (letters, digits, . _ -), like 100000000111",
    );
    ok = false;
  }
  return ok && phone.ok ? { type, phone: phone.phone, bankId } : undefined;
}

/** Every occurrence of a reused reference is an error naming all the rows that use it. */
export function markDuplicateReferences(rows: readonly BatchRow[], referenceIndex: number | undefined): void {
  if (referenceIndex === undefined) return;
  const seen = new Map<string, BatchRow[]>();
  for (const r of rows) {
    const reference = (r.cells[referenceIndex] ?? '').trim();
    if (!reference) continue;
    const list = seen.get(reference);
    if (list) list.push(r);
    else seen.set(reference, [r]);
  }
  for (const [reference, list] of seen) {
    if (list.length < 2) continue;
    const numbers = list.map((r) => r.row);
    const where = `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
    for (const r of list) {
      r.errors.push({
        row: r.row,
        column: 'reference',
        rule: 'reference_duplicate',
        message: `payout reference "${reference}" is used in rows ${where}; each payout needs its own reference`,
      });
      delete r.request;
    }
  }
}
