/**
 * The batch file's columns and every header alias, in one place. docs/batch-format.md mirrors this table.
 */
import { t } from '../i18n';
import type { AmountColumn } from './types';

export const COLUMNS = [
  'reference',
  'last_name',
  'first_name',
  'middle_name',
  'inn',
  'method',
  'card_number',
  'bik',
  'account',
  'phone',
  'bank_id',
  'amount',
  'amount_kopecks',
  'currency',
  'service_name',
  'description',
  'email',
  'citizenship',
  'metadata',
  'self_employed',
  'pay_on',
] as const;
export type Column = (typeof COLUMNS)[number];

/**
 * Columns every file must have (plus exactly one of amount / amount_kopecks). `currency` is not among
 * them: payouts are in rubles only, so a missing or blank currency means rub.
 */
export const REQUIRED_COLUMNS: readonly Column[] = [
  'reference',
  'last_name',
  'first_name',
  'inn',
  'method',
  'service_name',
];

/** Header aliases (besides the canonical name itself). Matched after trimming, lower-casing, ё→е and collapsing spaces. */
export const HEADER_ALIASES: Record<Column, readonly string[]> = {
  reference: ['ref', 'референс', 'номер выплаты', 'id выплаты'],
  last_name: ['фамилия'],
  first_name: ['имя'],
  middle_name: ['отчество'],
  inn: ['инн', 'tax_number'],
  method: ['способ', 'способ выплаты'],
  card_number: ['номер карты', 'карта'],
  bik: ['бик'],
  account: ['счет', 'номер счета', 'расчетный счет'],
  phone: ['телефон'],
  bank_id: ['банк сбп', 'id банка'],
  amount: ['сумма', 'сумма, руб', 'сумма руб'],
  amount_kopecks: ['сумма, коп', 'сумма коп', 'сумма в копейках'],
  currency: ['валюта'],
  service_name: ['услуга', 'наименование услуги'],
  description: ['описание', 'назначение'],
  email: ['e-mail', 'почта', 'эл. почта'],
  citizenship: ['гражданство', 'страна гражданства'],
  metadata: ['метаданные'],
  self_employed: ['самозанятый'],
  pay_on: ['дата выплаты', 'дата оплаты', 'pay on'],
};

export function normalizeHeader(text: string): string {
  return text.trim().toLowerCase().replace(/ё/g, 'е').replace(/\s+/g, ' ');
}

const HEADER_LOOKUP: ReadonlyMap<string, Column> = (() => {
  const map = new Map<string, Column>();
  for (const column of COLUMNS) {
    for (const name of [column, ...HEADER_ALIASES[column]]) map.set(normalizeHeader(name), column);
  }
  return map;
})();

export function columnForHeader(header: string): Column | undefined {
  return HEADER_LOOKUP.get(normalizeHeader(header));
}

export interface HeaderProblem {
  column: string;
  rule: 'missing_column' | 'duplicate_column' | 'amount_columns';
  message: string;
}

export interface HeaderMap {
  /** Canonical column → index of its cell. */
  index: Partial<Record<Column, number>>;
  amountColumn: AmountColumn;
  problems: HeaderProblem[];
}

/** Maps header cells to columns; unknown headers are kept in the file but ignored. */
export function mapHeaders(headers: readonly string[]): HeaderMap {
  const index: Partial<Record<Column, number>> = {};
  const problems: HeaderProblem[] = [];
  headers.forEach((header, i) => {
    const column = columnForHeader(header);
    if (!column) return;
    const prior = index[column];
    if (prior !== undefined) {
      problems.push({
        column,
        rule: 'duplicate_column',
        message: t('csv.duplicate_column', { column, first: headers[prior] ?? '', second: header }),
      });
      return;
    }
    index[column] = i;
  });
  for (const column of REQUIRED_COLUMNS) {
    if (index[column] === undefined) {
      problems.push({ column, rule: 'missing_column', message: t('csv.missing_column', { column }) });
    }
  }
  const hasRubles = index.amount !== undefined;
  const hasKopecks = index.amount_kopecks !== undefined;
  if (hasRubles && hasKopecks) {
    problems.push({
      column: 'amount',
      rule: 'amount_columns',
      message: t('csv.amount_columns'),
    });
  } else if (!hasRubles && !hasKopecks) {
    problems.push({
      column: 'amount',
      rule: 'missing_column',
      message: t('csv.missing_amount_column'),
    });
  }
  return { index, amountColumn: hasKopecks && !hasRubles ? 'amount_kopecks' : 'amount', problems };
}

/** Method cell values (case-insensitive, trimmed). */
export const METHOD_ALIASES: Record<string, 'card' | 'bank_account' | 'fps'> = {
  card: 'card',
  карта: 'card',
  bank_account: 'bank_account',
  счет: 'bank_account',
  fps: 'fps',
  sbp: 'fps',
  сбп: 'fps',
};

/** Fields each method needs, in the order they are checked. */
export const METHOD_FIELDS: Record<'card' | 'bank_account' | 'fps', readonly Column[]> = {
  card: ['card_number'],
  bank_account: ['bik', 'account'],
  fps: ['phone', 'bank_id'],
};

/** self_employed cell values; blank means yes. */
export const YES_NO: Record<string, boolean> = {
  yes: true,
  y: true,
  true: true,
  '1': true,
  да: true,
  no: false,
  n: false,
  false: false,
  '0': false,
  нет: false,
};

/** Reference cells that mark the final control-total row. */
export const TOTAL_MARKERS: ReadonlySet<string> = new Set(['total', 'итого', 'total:', 'итого:']);
