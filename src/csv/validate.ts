/**
 * One data row → a PayoutRequest or the list of everything wrong with it. Every error names the
 * row (as a spreadsheet numbers it), the column and the rule. Messages never echo card, account or phone
 * numbers, nor names.
 */
import { formatRubles, MoneyFormatError, parseKopecks, rublesToKopecks } from '../money';
import {
  checkInn12,
  isLuhnValid,
  isPlausibleEmail,
  isValidBankAccount,
  normalizePhone,
  REFERENCE_PATTERN,
} from './checks';
import { looksLikeMojibake } from './encoding';
import { METHOD_ALIASES, METHOD_FIELDS, YES_NO, type Column } from './format';
import type { AmountColumn, BatchRow, PayoutMethod, PayoutRequest, RowError } from './types';

export const STOP_LIST_MESSAGE =
  'tax number is on the stop-list (e.g. a former employee; the law forbids paying them as self-employed)';

/** The bank's limit on an FPS payout's description (spec, Limits: "FPS description: up to 140 characters"). */
export const FPS_DESCRIPTION_MAX = 140;
/** Other descriptions: the purpose field of a Russian payment order holds 210 characters (decision D21). */
export const DESCRIPTION_MAX = 210;
/** Last, first and middle name, each (decision D21). */
export const NAME_MAX = 64;
/** The service named on the fiscal receipt (decision D21). */
export const SERVICE_NAME_MAX = 128;

export interface RowContext {
  index: Partial<Record<Column, number>>;
  amountColumn: AmountColumn;
  headerLength: number;
  stopList?: ReadonlySet<string>;
  /** The most one payout may be (DEFAULT_MAX_PAYOUT_KOPECKS unless configured). */
  maxPayoutKopecks?: number;
}

/**
 * The most one row may pay unless configured otherwise (PAYRUN_MAX_PAYOUT): 1 000 000,00 ₽. A
 * self-employed person may earn 2.4 million roubles a year under the regime, so one payout above a
 * million is almost always a mistyped amount (150 000 000,00 for 150 000,00), and one such row would
 * otherwise hold the whole batch waiting for funds.
 */
export const DEFAULT_MAX_PAYOUT_KOPECKS = 1_000_000_00;

export interface RowOutcome {
  request?: PayoutRequest;
  errors: RowError[];
  /** The amount whenever it reads as money (even if the row is otherwise invalid); feeds the control total and summaries. */
  kopecks: number | null;
}

/** Spreadsheets write long numbers with spaces or no-break spaces ("4276 1234 5678 9012"). */
const digitsOnly = (text: string): string => text.replace(/[\s\u00a0\u202f-]/g, '');

/** Characters as a person counts them (code points), as the bank counts the FPS description. */
function chars(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--; // a surrogate pair is one character
  }
  return n;
}

export type AmountReading =
  | { kopecks: number; error?: { rule: string; message: string } }
  | { kopecks: null; error: { rule: string; message: string } };

/**
 * A rouble sign or abbreviation after an amount in roubles, as accounting writes it: `руб.`, `руб`,
 * `р.`, `р`, `₽`, `RUB` (any case, after a space or not). Not in amount_kopecks: a rouble sign on
 * kopecks is a unit mix-up, refused.
 */
const ROUBLE_SUFFIX = /(?<=\d)\s*(?:руб\.?|р\.?|₽|rub)\s*$/iu;

/** The amount cell: kopecks when it reads as money (an error still for zero or less), else only the error. */
export function readAmount(text: string, column: AmountColumn): AmountReading {
  if (column === 'amount_kopecks' && ROUBLE_SUFFIX.test(text.trim()))
    return {
      kopecks: null,
      error: {
        rule: 'amount_format',
        message: `amount "${text.trim()}" is in roubles but the column is amount_kopecks (whole kopecks, like 123456); name the column amount or write kopecks`,
      },
    };
  try {
    const kopecks =
      column === 'amount' ? rublesToKopecks(text.trim().replace(ROUBLE_SUFFIX, '')) : parseKopecks(text);
    if (kopecks <= 0)
      return {
        kopecks,
        error: { rule: 'amount_positive', message: `amount "${text.trim()}" must be positive` },
      };
    return { kopecks };
  } catch (e) {
    if (!(e instanceof MoneyFormatError)) throw e;
    if (e.rule === 'more than two decimals') {
      return {
        kopecks: null,
        error: { rule: 'amount_decimals', message: `amount "${text.trim()}" has more than two decimals` },
      };
    }
    const unit = column === 'amount' ? 'rubles, like 1 234,56' : 'whole kopecks, like 123456';
    return {
      kopecks: null,
      error: { rule: 'amount_format', message: `amount "${text.trim()}" is not ${unit} (${e.rule})` },
    };
  }
}

/** "U+00A0", with the character itself in front when it is visible. */
export function describeChar(ch: string): string {
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (ch === '\t') return `a tab (${code})`;
  if (ch === '\r' || ch === '\n') return `a line break (${code})`;
  if (ch === '\u00a0') return `a no-break space (${code})`;
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(ch) ? `"${ch}" (${code})` : code;
}

/**
 * A list dash or plus: `-` or `+`, then a space, then a word (`- аванс за март`). No formula starts
 * that way that could run anything: a spreadsheet reads it as a minus or plus before a name, which
 * is an error, never a call or a link. Such text is accepted and sent as written; every report still
 * writes it as text (neutralizeCell puts a quote before any cell starting with - or +).
 */
const BULLET = /^ *[-+] +\p{L}/u;

/**
 * What a spreadsheet would take for the start of a formula (OWASP CSV injection: = + - @, tab,
 * carriage return), also after leading blanks; undefined when the cell starts harmlessly (a list
 * dash before a word included, BULLET).
 */
export function formulaStart(raw: string): string | undefined {
  if (BULLET.test(raw)) return undefined;
  const first = /^[=+\-@\t\r]/.test(raw) ? raw[0]! : /^\s*([=+\-@])/.exec(raw)?.[1];
  return first === undefined
    ? undefined
    : first === '\t' || first === '\r'
      ? describeChar(first)
      : `"${first}"`;
}

/** Cyrillic or Latin letters, space, hyphen, apostrophes ' and ’, dot. */
const NAME_CHARS = /^(?:(?=\p{L})[\p{Script=Cyrillic}\p{Script=Latin}]|[ '\u2019.-])*$/u;
/** The common case, tested first because it is several times faster than the script classes. */
const PLAIN_NAME_CHARS = /^[А-яЁёA-Za-z '\u2019.-]*$/;
const NAME_CHAR = /^(?:(?=\p{L})[\p{Script=Cyrillic}\p{Script=Latin}]|[ '\u2019.-])$/u;
/** Control, format (zero-width, bidi), private-use, unassigned and surrogate characters, line and paragraph separators. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

export function validateRow(cells: readonly string[], row: number, ctx: RowContext): RowOutcome {
  const errors: RowError[] = [];
  const fail = (column: string | null, rule: string, message: string): void => {
    errors.push({ row, column, rule, message });
  };
  const raw = (column: Column): string => {
    const i = ctx.index[column];
    return i === undefined ? '' : (cells[i] ?? '');
  };
  const cell = (column: Column): string => raw(column).trim();
  const required = (column: Column, what: string): string => {
    const value = cell(column);
    if (!value) fail(column, 'required', `${what} is blank`);
    return value;
  };
  /**
   * A cell of free text: refused when a spreadsheet would run it as a formula, or when it is already
   * garbled by a wrong decoding; then null (one error per cell). Otherwise trimmed.
   */
  const freeText = (column: Column, what: string): string | null => {
    const value = raw(column);
    const formula = formulaStart(value);
    if (formula) {
      fail(
        column,
        'formula_like',
        `${what} begins with ${formula}, which a spreadsheet takes for a formula; start it with a letter or digit`,
      );
      return null;
    }
    const text = value.trim();
    if (looksLikeMojibake(text)) {
      fail(
        column,
        'mojibake',
        `${what} looks like UTF-8 text that was read as Windows-1251 or Windows-1252 on the way (like "РЎРјРёСЂРЅРѕРІ" for "Смирнов"); export the file again from the original`,
      );
      return null;
    }
    return text;
  };
  const name = (column: Column, what: string, isRequired: boolean): string => {
    const text = freeText(column, what);
    if (text === null) return '';
    if (!text) {
      if (isRequired) fail(column, 'required', `${what} is blank`);
      return '';
    }
    // Spreadsheets on macOS may store "й" as "и" + a combining breve; the bank compares composed text.
    const value = text.normalize('NFC');
    const bad =
      PLAIN_NAME_CHARS.test(value) || NAME_CHARS.test(value)
        ? undefined
        : [...value].find((ch) => !NAME_CHAR.test(ch));
    if (bad !== undefined || !/\p{L}/u.test(value)) {
      fail(
        column,
        'name_chars',
        `${what} may contain only Cyrillic or Latin letters, spaces, hyphens, apostrophes (' ’) and dots, and at least one letter${bad === undefined ? '' : `; found ${describeChar(bad)}`}`,
      );
    } else if (chars(value) > NAME_MAX) {
      fail(column, 'name_length', `${what} has ${chars(value)} characters; at most ${NAME_MAX}`);
    }
    return value;
  };
  /** Printable text; `lineBreaks` lets a multi-line cell (Alt+Enter in a spreadsheet) through. */
  const printable = (column: Column, what: string, text: string, lineBreaks: boolean): boolean => {
    const bad = UNPRINTABLE.exec(lineBreaks ? text.replace(/\r\n|\r|\n/g, ' ') : text)?.[0];
    if (bad === undefined) return true;
    fail(
      column,
      'text_printable',
      `${what} contains ${describeChar(bad)}, an invisible or control character; write plain text`,
    );
    return false;
  };

  if (cells.length > ctx.headerLength) {
    fail(
      null,
      'column_count',
      `row has ${cells.length} cells but the header has ${ctx.headerLength}; an unquoted delimiter inside a value (e.g. a decimal comma in a comma-separated file) shifts the columns`,
    );
  }

  // A reference is an identity echoed into the report: one starting with "-" (a negative number to a
  // spreadsheet) would come back as '-001 or -1, so it is refused rather than escaped.
  const referenceFormula = formulaStart(raw('reference'));
  let reference = '';
  if (referenceFormula) {
    fail(
      'reference',
      'formula_like',
      `payout reference begins with ${referenceFormula}, which a spreadsheet takes for a formula or a negative number; start it with a letter or digit`,
    );
  } else {
    reference = required('reference', 'payout reference');
    if (reference && !REFERENCE_PATTERN.test(reference)) {
      fail(
        'reference',
        'reference_format',
        'payout reference must be 1–64 characters of latin letters, digits and . _ : -',
      );
    }
  }
  const lastName = name('last_name', 'last name', true);
  const firstName = name('first_name', 'first name', true);
  const middleName = name('middle_name', 'middle name', false);

  const inn = digitsOnly(required('inn', 'tax number (INN)'));
  if (inn) {
    const verdict = checkInn12(inn);
    if (verdict === 'format') fail('inn', 'inn_format', 'tax number (INN) of a person must be 12 digits');
    else if (verdict === 'checksum') fail('inn', 'inn_checksum', 'tax number (INN) fails its check digits');
    else if (verdict === 'region')
      fail('inn', 'inn_region', 'tax number (INN) starts with region 00, which does not exist');
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
    kopecks = amount.kopecks;
    const limit = ctx.maxPayoutKopecks ?? DEFAULT_MAX_PAYOUT_KOPECKS;
    if (amount.error) fail(ctx.amountColumn, amount.error.rule, amount.error.message);
    else if (kopecks !== null && kopecks > limit)
      fail(
        ctx.amountColumn,
        'amount_above_limit',
        `amount "${amountText}" is above the limit of one payout, ${formatRubles(limit)} ₽; check the amount (the limit is PAYRUN_MAX_PAYOUT)`,
      );
  }

  // Payouts are in rubles only: a file without the column, or a blank cell, means rub.
  const currency = cell('currency');
  if (currency && currency.toLowerCase() !== 'rub') {
    fail('currency', 'currency_unknown', `currency "${currency}" is not supported; only RUB`);
  }

  const serviceText = freeText('service_name', 'service name');
  let serviceName = '';
  if (serviceText !== null) {
    serviceName = required('service_name', 'service name (for the receipt)');
    if (serviceName && printable('service_name', 'service name', serviceName, false)) {
      if (chars(serviceName) > SERVICE_NAME_MAX) {
        fail(
          'service_name',
          'service_name_length',
          `service name has ${chars(serviceName)} characters; at most ${SERVICE_NAME_MAX}`,
        );
      }
    }
  }

  const description = freeText('description', 'description') ?? '';
  if (description && printable('description', 'description', description, true)) {
    if (methodType === 'fps' && chars(description) > FPS_DESCRIPTION_MAX) {
      fail(
        'description',
        'description_length',
        `description has ${chars(description)} characters; FPS allows at most ${FPS_DESCRIPTION_MAX}`,
      );
    } else if (methodType !== 'fps' && chars(description) > DESCRIPTION_MAX) {
      fail(
        'description',
        'description_length',
        `description has ${chars(description)} characters; at most ${DESCRIPTION_MAX} (a payment order's purpose field)`,
      );
    }
  }

  const email = freeText('email', 'email') ?? '';
  if (email && !isPlausibleEmail(email))
    fail('email', 'email_format', `email "${email}" is not a valid address`);

  const metadataText = freeText('metadata', 'metadata') ?? '';
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
/** The error each row sharing a payout reference gets; `rows`: every row with that reference, ascending. */
export function duplicateReferenceError(row: number, reference: string, rows: readonly number[]): RowError {
  const where = `${rows.slice(0, -1).join(', ')} and ${rows[rows.length - 1]}`;
  return {
    row,
    column: 'reference',
    rule: 'reference_duplicate',
    message: `payout reference "${reference}" is used in rows ${where}; each payout needs its own reference`,
  };
}

/** A TOTAL / ИТОГО row anywhere but last. */
export function totalRowPositionError(row: number): RowError {
  return {
    row,
    column: 'reference',
    rule: 'total_row_position',
    message: 'a TOTAL / ИТОГО row must be the last row of the file',
  };
}

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
    for (const r of list) {
      r.errors.push(duplicateReferenceError(r.row, reference, numbers));
      delete r.request;
    }
  }
}
