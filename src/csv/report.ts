/**
 * The row-by-row report: every input row with its original cells, plus result columns, written in
 * the input file's own encoding, delimiter, line ending and BOM so it opens in the same spreadsheet.
 * Card, account and phone numbers are masked and every cell a spreadsheet could run as a formula is
 * neutralised. Nothing here logs.
 */
import { stringify } from 'csv-stringify/sync';
import { formatRubles, sumKopecks } from '../money';
import { encodeText } from './decode';
import { columnForHeader, type Column } from './format';
import type { BatchRow, LoadedBatch } from './types';

export const RESULT_COLUMNS = [
  'state',
  'bank_session_id',
  'bank_payout_id',
  'receipt_link',
  'error_code',
  'reason',
] as const;

/** State values come from the payout workflow (paid/succeeded, credited, failed, rejected, returned, expired, cancelled, already_paid, invalid). */
export interface ReportResult {
  state: string;
  bank_session_id?: string;
  bank_payout_id?: string;
  receipt_link?: string;
  error_code?: string;
  reason?: string;
}

export type ReportBatch = Pick<LoadedBatch, 'format' | 'rows' | 'rejected' | 'fileErrors' | 'totalRow'>;
/** Results keyed by the row number (BatchRow.row), or looked up per row. */
export type ReportResults = ReadonlyMap<number, ReportResult> | ((row: BatchRow) => ReportResult | undefined);

/** The result a row gets when the workflow supplied none: validation errors, file rejection, or not processed. */
export function defaultResult(batch: ReportBatch, row: BatchRow): ReportResult {
  if (row.errors.length > 0) {
    return {
      state: 'invalid',
      error_code: [...new Set(row.errors.map((e) => e.rule))].join(' '),
      reason: row.errors.map((e) => (e.column ? `${e.column}: ${e.message}` : e.message)).join('; '),
    };
  }
  if (batch.rejected) {
    const why =
      batch.fileErrors.length > 0
        ? batch.fileErrors.map((e) => e.message).join('; ')
        : 'other rows are invalid';
    return {
      state: 'rejected',
      error_code: 'file_rejected',
      reason: `not paid: the file was rejected (${why})`,
    };
  }
  return { state: '', reason: 'not processed' };
}

export function resolveResults(
  batch: ReportBatch,
  results: ReportResults,
): { row: BatchRow; result: ReportResult }[] {
  const lookup = typeof results === 'function' ? results : (r: BatchRow) => results.get(r.row);
  return batch.rows.map((row) => ({ row, result: lookup(row) ?? defaultResult(batch, row) }));
}

/**
 * A cell a spreadsheet would take for a formula (= + - @, tab, carriage return first: the OWASP list)
 * gets a leading single quote, which spreadsheets read as "this is text". Applied to every cell of the
 * report, echoed input and result columns alike, so a report can never run anything when opened.
 */
export function neutralizeCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * Card numbers keep the first 6 and last 4 digits (PCI DSS: at most BIN and last four may be shown):
 * `555555******4444`; account and phone numbers only the last 4. Only the digits are written (the
 * spreadsheet's spaces and dashes dropped). A cell that is not 13–19 digits is not a card number
 * anyone could use whole, but may still hold most of one: it keeps only its last 4 digits too.
 */
export function maskDigits(text: string, kind: 'card' | 'last4'): string {
  const digits = text.replace(/\D/g, '');
  if (!digits) return text;
  const keepHead = kind === 'card' && digits.length >= 13 && digits.length <= 19 ? 6 : 0;
  const keepTail = Math.min(4, digits.length - keepHead);
  return (
    digits.slice(0, keepHead) +
    '*'.repeat(digits.length - keepHead - keepTail) +
    digits.slice(digits.length - keepTail)
  );
}

const MASKED: Partial<Record<Column, 'card' | 'last4'>> = {
  card_number: 'card',
  account: 'last4',
  phone: 'last4',
};

export interface ReportOptions {
  /** Card, account and phone numbers masked (default true). false writes them as the file has them. */
  mask?: boolean;
}

export function writeReport(batch: ReportBatch, results: ReportResults, opts: ReportOptions = {}): Buffer {
  const { format } = batch;
  const inputRows = [...batch.rows.map((r) => r.cells), ...(batch.totalRow ? [batch.totalRow.cells] : [])];
  // Rows wider than the header (an unquoted delimiter) would push the result columns out of line: pad everything.
  const width = Math.max(format.headers.length, ...inputRows.map((cells) => cells.length));
  // Every header naming a card, account or phone column (a duplicated one too) is masked.
  const masks = format.headers.map((h) => {
    const column = columnForHeader(h);
    return opts.mask === false || !column ? undefined : MASKED[column];
  });
  const echo = (cells: readonly string[]): string[] => [
    ...cells.map((cell, i) => {
      const mask = masks[i];
      return neutralizeCell(mask ? maskDigits(cell, mask) : cell);
    }),
    ...Array<string>(width - cells.length).fill(''),
  ];
  const records: string[][] = [[...echo(format.headers), ...RESULT_COLUMNS]];
  for (const { row, result } of resolveResults(batch, results)) {
    records.push([...echo(row.cells), ...RESULT_COLUMNS.map((c) => neutralizeCell(result[c] ?? ''))]);
  }
  if (batch.totalRow) records.push([...echo(batch.totalRow.cells), ...RESULT_COLUMNS.map(() => '')]);
  const text = stringify(records, { delimiter: format.delimiter, record_delimiter: format.lineEnding });
  return encodeText(text, format.encoding, format.bom);
}

export interface StateSummary {
  count: number;
  /** The sum of the amounts that could be read. */
  kopecks: number;
  formatted: string;
  /** How many of the rows had no readable amount (not included in kopecks). */
  unreadable: number;
}

export interface Summary {
  rows: number;
  byState: Record<string, StateSummary>;
  /** The file total: every row's readable amount; the states' kopecks add up to it. */
  total: StateSummary;
  /** Rows whose amount could not be read, when the entries named their rows. */
  unreadableRows: number[];
  text: string;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** "1 234,56 RUB", "1 234,56 RUB + 1 unreadable amount", "amount unreadable". */
function describeAmount(s: StateSummary): string {
  if (s.unreadable === 0) return `${s.formatted} RUB`;
  if (s.unreadable === s.count) return s.count === 1 ? 'amount unreadable' : 'amounts unreadable';
  return `${s.formatted} RUB + ${plural(s.unreadable, 'unreadable amount', 'unreadable amounts')}`;
}

/**
 * Counts and amounts by state. amount: the row's kopecks as read from its amount cell (for an invalid
 * row too, so paid + failed + invalid add up to the file total); null or absent when it could not be
 * read, which the summary says instead of counting it as 0,00.
 */
export function summarize(
  results: Iterable<{ state: string; amount?: number | null; row?: number }>,
): Summary {
  const groups = new Map<string, (number | null)[]>();
  const all: (number | null)[] = [];
  const unreadableRows: number[] = [];
  for (const { state, amount, row } of results) {
    const key = state || 'not_processed';
    const value = amount ?? null;
    const list = groups.get(key) ?? [];
    list.push(value);
    groups.set(key, list);
    all.push(value);
    if (value === null && row !== undefined) unreadableRows.push(row);
  }
  const describe = (amounts: (number | null)[]): StateSummary => {
    const readable = amounts.filter((a): a is number => a !== null);
    const kopecks = sumKopecks(readable);
    return {
      count: amounts.length,
      kopecks,
      formatted: formatRubles(kopecks),
      unreadable: amounts.length - readable.length,
    };
  };
  const byState: Record<string, StateSummary> = {};
  for (const [state, amounts] of groups) byState[state] = describe(amounts);
  const total = describe(all);
  const parts = Object.entries(byState).map(([state, s]) => `${state} ${s.count} (${describeAmount(s)})`);
  const shown = unreadableRows.slice(0, 10).join(', ');
  const more = unreadableRows.length > 10 ? ` and ${unreadableRows.length - 10} more` : '';
  const note =
    total.unreadable === 0
      ? ''
      : ` + ${plural(total.unreadable, 'unreadable amount', 'unreadable amounts')}${unreadableRows.length ? ` (${unreadableRows.length === 1 ? 'row' : 'rows'} ${shown}${more})` : ''}`;
  const text = `${total.count} rows, ${total.formatted} RUB${note}${parts.length ? `: ${parts.join(', ')}` : ''}`;
  return { rows: total.count, byState, total, unreadableRows, text };
}

/** summarize() over a batch and its results, the amounts read from the rows' amount cells. */
export function summarizeReport(batch: ReportBatch, results: ReportResults): Summary {
  return summarize(
    resolveResults(batch, results).map(({ row, result }) => ({
      state: result.state,
      amount: row.kopecks !== undefined ? row.kopecks : (row.request?.amount ?? null),
      row: row.row,
    })),
  );
}
