/**
 * One data row → a PayoutRequest or the list of everything wrong with it. Every error names the
 * row (as a spreadsheet numbers it), the column and the rule. Messages never echo card, account or phone
 * numbers, nor names.
 */
import { MoneyFormatError, parseKopecks, rublesToKopecks } from '../money';
import { charName, currentLang, t, type CharName } from '../i18n';
import {
  chars,
  METADATA_MAX,
  metadataChars,
  checkInn12,
  DESCRIPTION_MAX,
  FPS_DESCRIPTION_MAX,
  isBik,
  isAccountNumber,
  isCardLength,
  isCardNumber,
  isCountryAlpha3,
  isFpsBankId,
  isPlausibleEmail,
  isReference,
  isValidBankAccount,
  NAME_MAX,
  SERVICE_NAME_MAX,
  lastPayOn,
  payOnRule,
  readPayOn,
  type PayoutMethod,
  type PayoutRequest,
} from '../domain';
import { normalizePhone } from './checks';
import { looksLikeMojibake } from './encoding';
import { METHOD_ALIASES, METHOD_FIELDS, YES_NO, type Column } from './format';
import type { AmountColumn, BatchRow, RowError } from './types';

/** The stop-list's message in English (PAYRUN_LANG=en); t('csv.stop_list') in the language set. */
export const STOP_LIST_MESSAGE = t('csv.stop_list', {}, 'en');

/** The limits are the domain's (src/domain/rules.ts); exported here under the names the CSV always had. */
export { DESCRIPTION_MAX, FPS_DESCRIPTION_MAX, NAME_MAX, SERVICE_NAME_MAX };

export interface RowContext {
  index: Partial<Record<Column, number>>;
  amountColumn: AmountColumn;
  headerLength: number;
  stopList?: ReadonlySet<string>;
  /** The most one payout may be (payoutLimit: given, PAYRUN_MAX_PAYOUT, or the default). */
  maxPayoutKopecks: number;
  /** The Moscow day pay_on is judged from (LoadOptions.today). */
  today: string;
  /** Rows with a pay_on date met so far in this file (one counter per read of a file). */
  scheduled?: { count: number };
}

/**
 * The most rows with a pay_on date one file may hold. A batch carries each sleeping row across its
 * continue-as-new (about 80 bytes a row, encrypted), and Temporal refuses a payload over 2 MB: 10 000
 * keep the carry under a megabyte. A larger schedule is split into files (docs/batch-format.md).
 */
export const MAX_SCHEDULED_ROWS = 10_000;

export { DEFAULT_MAX_PAYOUT_KOPECKS } from './limits';

export interface RowOutcome {
  request?: PayoutRequest;
  errors: RowError[];
  /** The amount whenever it reads as money (even if the row is otherwise invalid); feeds the control total and summaries. */
  kopecks: number | null;
}

/** Spreadsheets write long numbers with spaces or no-break spaces ("4276 1234 5678 9012"). */
const digitsOnly = (text: string): string => text.replace(/[\s\u00a0\u202f-]/g, '');

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
        message: t('csv.amount_in_roubles_not_kopecks', { text: text.trim() }),
      },
    };
  try {
    const kopecks =
      column === 'amount' ? rublesToKopecks(text.trim().replace(ROUBLE_SUFFIX, '')) : parseKopecks(text);
    if (kopecks <= 0)
      return {
        kopecks,
        error: { rule: 'amount_positive', message: t('csv.amount_positive', { text: text.trim() }) },
      };
    return { kopecks };
  } catch (e) {
    if (!(e instanceof MoneyFormatError)) throw e;
    if (e.rule === 'more than two decimals') {
      return {
        kopecks: null,
        error: { rule: 'amount_decimals', message: t('csv.amount_decimals', { text: text.trim() }) },
      };
    }
    return {
      kopecks: null,
      error: {
        rule: 'amount_format',
        message: t('csv.amount_format', {
          text: text.trim(),
          kopecks: column === 'amount_kopecks',
          why: e.rule,
        }),
      },
    };
  }
}

/** A character to name in a message: its code point (U+00A0), and the character itself when it is visible. */
export function describeChar(ch: string): CharName {
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (ch === '\t') return { kind: 'tab', ch, code };
  if (ch === '\r' || ch === '\n') return { kind: 'line_break', ch, code };
  if (ch === '\u00a0') return { kind: 'nbsp', ch, code };
  return { kind: /[\p{L}\p{N}\p{P}\p{S}]/u.test(ch) ? 'visible' : 'invisible', ch, code };
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
      ? charName(describeChar(first), currentLang())
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
  const required = (column: Column): string => {
    const value = cell(column);
    if (!value) fail(column, 'required', t('csv.required', { column }));
    return value;
  };
  /**
   * A cell of free text: refused when a spreadsheet would run it as a formula, or when it is already
   * garbled by a wrong decoding; then null (one error per cell). Otherwise trimmed.
   */
  const freeText = (column: Column): string | null => {
    const value = raw(column);
    const formula = formulaStart(value);
    if (formula) {
      fail(column, 'formula_like', t('csv.formula_like', { column, start: formula }));
      return null;
    }
    const text = value.trim();
    if (looksLikeMojibake(text)) {
      fail(column, 'mojibake', t('csv.mojibake', { column }));
      return null;
    }
    return text;
  };
  const name = (column: Column, isRequired: boolean): string => {
    const text = freeText(column);
    if (text === null) return '';
    if (!text) {
      if (isRequired) fail(column, 'required', t('csv.required', { column }));
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
        t('csv.name_chars', { column, ...(bad === undefined ? {} : { found: describeChar(bad) }) }),
      );
    } else if (chars(value) > NAME_MAX) {
      fail(column, 'name_length', t('csv.name_length', { column, chars: chars(value), max: NAME_MAX }));
    }
    return value;
  };
  /** Printable text; `lineBreaks` lets a multi-line cell (Alt+Enter in a spreadsheet) through. */
  const printable = (column: Column, text: string, lineBreaks: boolean): boolean => {
    const bad = UNPRINTABLE.exec(lineBreaks ? text.replace(/\r\n|\r|\n/g, ' ') : text)?.[0];
    if (bad === undefined) return true;
    fail(column, 'text_printable', t('csv.text_printable', { column, found: describeChar(bad) }));
    return false;
  };

  if (cells.length > ctx.headerLength) {
    fail(null, 'column_count', t('csv.column_count', { cells: cells.length, header: ctx.headerLength }));
  }

  // A reference is an identity echoed into the report: one starting with "-" (a negative number to a
  // spreadsheet) would come back as '-001 or -1, so it is refused rather than escaped.
  const referenceFormula = formulaStart(raw('reference'));
  let reference = '';
  if (referenceFormula) {
    fail('reference', 'formula_like', t('csv.reference_formula', { start: referenceFormula }));
  } else {
    reference = required('reference');
    if (reference && !isReference(reference)) {
      fail('reference', 'reference_format', t('csv.reference_format'));
    }
  }
  const lastName = name('last_name', true);
  const firstName = name('first_name', true);
  const middleName = name('middle_name', false);

  const inn = digitsOnly(required('inn'));
  if (inn) {
    const verdict = checkInn12(inn);
    if (verdict === 'format') fail('inn', 'inn_format', t('csv.inn_format'));
    else if (verdict === 'checksum') fail('inn', 'inn_checksum', t('csv.inn_checksum'));
    else if (verdict === 'region') fail('inn', 'inn_region', t('csv.inn_region'));
    else if (ctx.stopList?.has(inn)) fail('inn', 'stop_list', t('csv.stop_list'));
  }

  const methodText = required('method');
  const methodType = methodText ? METHOD_ALIASES[methodText.toLowerCase()] : undefined;
  if (methodText && !methodType) {
    fail('method', 'method_unknown', t('csv.method_unknown', { method: methodText }));
  }
  let method: PayoutMethod | undefined;
  if (methodType) method = readMethod(methodType, cell, fail);

  let kopecks: number | null = null;
  const amountText = required(ctx.amountColumn);
  if (amountText) {
    const amount = readAmount(amountText, ctx.amountColumn);
    kopecks = amount.kopecks;
    const limit = ctx.maxPayoutKopecks;
    if (amount.error) fail(ctx.amountColumn, amount.error.rule, amount.error.message);
    else if (kopecks !== null && kopecks > limit)
      fail(ctx.amountColumn, 'amount_above_limit', t('csv.amount_above_limit', { text: amountText, limit }));
  }

  // Payouts are in rubles only: a file without the column, or a blank cell, means rub.
  const currency = cell('currency');
  if (currency && currency.toLowerCase() !== 'rub') {
    fail('currency', 'currency_unknown', t('csv.currency_unknown', { currency }));
  }

  const serviceText = freeText('service_name');
  let serviceName = '';
  if (serviceText !== null) {
    serviceName = required('service_name');
    if (serviceName && printable('service_name', serviceName, false)) {
      if (chars(serviceName) > SERVICE_NAME_MAX) {
        fail(
          'service_name',
          'service_name_length',
          t('csv.service_name_length', { chars: chars(serviceName), max: SERVICE_NAME_MAX }),
        );
      }
    }
  }

  const description = freeText('description') ?? '';
  if (description && printable('description', description, true)) {
    if (methodType === 'fps' && chars(description) > FPS_DESCRIPTION_MAX) {
      fail(
        'description',
        'description_length',
        t('csv.description_length_fps', { chars: chars(description), max: FPS_DESCRIPTION_MAX }),
      );
    } else if (methodType !== 'fps' && chars(description) > DESCRIPTION_MAX) {
      fail(
        'description',
        'description_length',
        t('csv.description_length', { chars: chars(description), max: DESCRIPTION_MAX }),
      );
    }
  }

  const email = freeText('email') ?? '';
  if (email && !isPlausibleEmail(email)) fail('email', 'email_format', t('csv.email_format', { email }));

  // The bank's citizenship_country_iso3; people write the code in any case.
  const citizenship = (freeText('citizenship') ?? '').toUpperCase();
  if (citizenship && !isCountryAlpha3(citizenship))
    fail('citizenship', 'citizenship_format', t('csv.citizenship_format', { value: citizenship }));

  const metadataText = freeText('metadata') ?? '';
  let metadata: PayoutRequest['metadata'];
  if (metadataText.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(metadataText);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        metadata = parsed as Record<string, unknown>;
      else fail('metadata', 'metadata_json', t('csv.metadata_json_object'));
    } catch (e) {
      fail('metadata', 'metadata_json', t('csv.metadata_json', { error: (e as Error).message }));
    }
  } else if (metadataText) metadata = metadataText;
  // Measured as the workflow's input rule measures it (the JSON the bank receives), so a row passed
  // here is never refused when its payout starts.
  if (metadata !== undefined && metadataChars(metadata) > METADATA_MAX) {
    const length = metadataChars(metadata);
    fail('metadata', 'metadata_length', t('csv.metadata_length', { chars: length, max: METADATA_MAX }));
  }

  const selfEmployedText = cell('self_employed');
  const selfEmployed = selfEmployedText ? YES_NO[selfEmployedText.toLowerCase()] : true;
  if (selfEmployed === undefined) {
    fail('self_employed', 'self_employed_value', t('csv.self_employed_value', { value: selfEmployedText }));
  }

  const payOn = readPayOnCell(cell('pay_on'), ctx.today, fail);
  if (payOn && ctx.scheduled && errors.length === 0) {
    if (ctx.scheduled.count >= MAX_SCHEDULED_ROWS)
      fail('pay_on', 'pay_on_too_many', t('csv.pay_on_too_many', { max: MAX_SCHEDULED_ROWS }));
    else ctx.scheduled.count++;
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
      ...(citizenship && { citizenship }),
    },
    method,
    amount: kopecks,
    currency: 'rub',
    serviceName,
    ...(description && { description }),
    ...(metadata !== undefined && { metadata }),
    selfEmployed,
    ...(payOn && { payOn }),
  };
  return { request, errors, kopecks };
}

/** pay_on: blank pays now; otherwise a date from today (Moscow) to a year ahead, as YYYY-MM-DD. */
function readPayOnCell(
  text: string,
  today: string,
  fail: (column: string | null, rule: string, message: string) => void,
): string | undefined {
  if (!text) return undefined;
  const date = readPayOn(text);
  if (!date) {
    fail('pay_on', 'pay_on_format', t('csv.pay_on_format', { value: text }));
    return undefined;
  }
  const rule = payOnRule(date, today);
  if (rule === 'pay_on_past') fail('pay_on', rule, t('csv.pay_on_past', { date, today }));
  else if (rule === 'pay_on_too_far')
    fail('pay_on', rule, t('csv.pay_on_too_far', { date, last: lastPayOn(today) }));
  return rule ? undefined : date;
}

function readMethod(
  type: 'card' | 'bank_account' | 'fps',
  cell: (column: Column) => string,
  fail: (column: string | null, rule: string, message: string) => void,
): PayoutMethod | undefined {
  const missing = METHOD_FIELDS[type].filter((column) => !cell(column));
  for (const column of missing)
    fail(column, 'method_fields', t('csv.method_fields', { method: type, column }));
  if (missing.length > 0) return undefined;

  if (type === 'card') {
    const cardNumber = digitsOnly(cell('card_number'));
    if (!isCardLength(cardNumber)) {
      fail('card_number', 'card_length', t('csv.card_length', { exponent: /e\+?\d/i.test(cardNumber) }));
      return undefined;
    }
    if (!isCardNumber(cardNumber)) {
      fail('card_number', 'card_luhn', t('csv.card_luhn'));
      return undefined;
    }
    return { type, cardNumber };
  }
  if (type === 'bank_account') {
    const bik = digitsOnly(cell('bik'));
    const account = digitsOnly(cell('account'));
    let ok = true;
    if (!isBik(bik)) {
      fail('bik', 'bik_format', t('csv.bik_format', { leadingZero: /^\d{8}$/.test(bik) }));
      ok = false;
    }
    if (!isAccountNumber(account)) {
      fail('account', 'account_format', t('csv.account_format'));
      ok = false;
    }
    if (ok && !isValidBankAccount(bik, account)) {
      fail('account', 'account_key', t('csv.account_key'));
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
  if (!isFpsBankId(bankId)) {
    fail('bank_id', 'bank_id_format', t('csv.bank_id_format'));
    ok = false;
  }
  return ok && phone.ok ? { type, phone: phone.phone, bankId } : undefined;
}

/** Every occurrence of a reused reference is an error naming all the rows that use it. */
/** The error each row sharing a payout reference gets; `rows`: every row with that reference, ascending. */
export function duplicateReferenceError(row: number, reference: string, rows: readonly number[]): RowError {
  return {
    row,
    column: 'reference',
    rule: 'reference_duplicate',
    message: t('csv.reference_duplicate', { reference, rows }),
  };
}

/** A TOTAL / ИТОГО row anywhere but last. */
export function totalRowPositionError(row: number): RowError {
  return {
    row,
    column: 'reference',
    rule: 'total_row_position',
    message: t('csv.total_row_position'),
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
