/**
 * The row-by-row report: every input row with its original cells, plus result columns, written in
 * the input file's own encoding, delimiter, line ending and BOM so it opens in the same spreadsheet.
 * Card, account and phone numbers are masked and every cell a spreadsheet could run as a formula is
 * neutralised. Nothing here logs.
 */
import { stringify } from 'csv-stringify/sync';
import { isCardLength } from '../domain';
import { t } from '../i18n';
import { formatRubles, sumKopecks } from '../money';
import { encodeText } from './decode';
import { columnForHeader, type Column } from './format';
import type { BatchFormat, BatchRow, LoadedBatch, RowError } from './types';

export const RESULT_COLUMNS = [
  'state',
  'bank_session_id',
  'bank_payout_id',
  'receipt_link',
  'error_code',
  'reason',
  'headroom', // appended last, so readers of the older columns find them where they were
] as const;

/**
 * The outcome in words in the report's language (issue 39: accountants read the `state` codes as English),
 * appended after every code column so that readers of those find them where they were.
 */
export const stateWordsHeader = (): string => t('report.state_words_header');
const stateWords = (state: string): string => t('state.name', { state: state || 'not_processed' });

/** State values come from the payout workflow (paid/succeeded, credited, failed, rejected, returned, expired, cancelled, already_paid, invalid). */
export interface ReportResult {
  state: string;
  bank_session_id?: string;
  bank_payout_id?: string;
  receipt_link?: string;
  error_code?: string;
  reason?: string;
  /** What is left for the row's person under their limits when the report is written (roubles). */
  headroom?: string;
}

export type ReportBatch = Pick<LoadedBatch, 'format' | 'rows' | 'rejected' | 'fileErrors' | 'totalRow'>;
/** Results keyed by the row number (BatchRow.row), or looked up per row. */
export type ReportResults = ReadonlyMap<number, ReportResult> | ((row: BatchRow) => ReportResult | undefined);

/** The result a row gets when the workflow supplied none: validation errors, file rejection, or not processed. */
export function defaultResult(batch: ReportBatch, row: BatchRow): ReportResult {
  if (row.errors.length > 0) return invalidResult(row.errors);
  if (batch.rejected) {
    const why = batch.fileErrors.length > 0 ? batch.fileErrors.map((e) => e.message).join('; ') : null;
    return { state: 'rejected', error_code: 'file_rejected', reason: t('report.file_rejected', { why }) };
  }
  return notProcessed();
}

/** A row the batch never reached (nor cancelled). */
export const notProcessed = (): ReportResult => ({ state: '', reason: t('report.not_processed') });

/** A row refused by validation: every rule it broke, and every message. */
export function invalidResult(errors: readonly RowError[]): ReportResult {
  return {
    state: 'invalid',
    error_code: [...new Set(errors.map((e) => e.rule))].join(' '),
    reason: errors.map((e) => (e.column ? `${e.column}: ${e.message}` : e.message)).join('; '),
  };
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
  const keepHead = kind === 'card' && isCardLength(digits) ? 6 : 0;
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

/** The widest row of the file: rows wider than the header (an unquoted delimiter) widen the report. */
export function reportWidth(batch: Pick<ReportBatch, 'format' | 'rows' | 'totalRow'>): number {
  let width = batch.format.headers.length;
  for (const r of batch.rows) width = Math.max(width, r.cells.length);
  return Math.max(width, batch.totalRow?.cells.length ?? 0);
}

/** How many records are stringified and encoded at once: enough to be quick, few enough to stay small. */
const RECORDS_PER_WRITE = 1000;

/**
 * Writes a report record by record to `sink` (a file, a buffer list), a thousand records at a time,
 * so its memory does not depend on the row count. `width`: the widest row (reportWidth, or counted
 * while scanning the file), so the result columns of every row line up; rows are padded to it.
 */
export class ReportWriter {
  private readonly masks: ('card' | 'last4' | undefined)[];
  private records: string[][] = [];
  private started = false;

  constructor(
    private readonly format: BatchFormat,
    private readonly width: number,
    private readonly sink: (bytes: Buffer) => void,
    opts: ReportOptions = {},
  ) {
    // Every header naming a card, account or phone column (a duplicated one too) is masked.
    this.masks = format.headers.map((h) => {
      const column = columnForHeader(h);
      return opts.mask === false || !column ? undefined : MASKED[column];
    });
    this.records.push([...this.echo(format.headers), ...RESULT_COLUMNS, stateWordsHeader()]);
  }

  private echo(cells: readonly string[]): string[] {
    const out = cells.map((cell, i) => {
      const mask = this.masks[i];
      return neutralizeCell(mask ? maskDigits(cell, mask) : cell);
    });
    while (out.length < this.width) out.push('');
    return out;
  }

  /** A data row with its result. */
  row(cells: readonly string[], result: ReportResult): void {
    this.push([
      ...this.echo(cells),
      ...RESULT_COLUMNS.map((c) => neutralizeCell(result[c] ?? '')),
      stateWords(result.state),
    ]);
  }

  /** The control-total row: echoed, no result. */
  totalRow(cells: readonly string[]): void {
    this.push([...this.echo(cells), ...RESULT_COLUMNS.map(() => ''), '']);
  }

  private push(record: string[]): void {
    this.records.push(record);
    if (this.records.length >= RECORDS_PER_WRITE) this.flush();
  }

  private flush(): void {
    if (this.records.length === 0) return;
    const { delimiter, lineEnding, encoding, bom } = this.format;
    const text = stringify(this.records, { delimiter, record_delimiter: lineEnding });
    this.records = [];
    // The byte order mark, if the file had one, starts the report only.
    this.sink(encodeText(text, encoding, bom && !this.started));
    this.started = true;
  }

  end(): void {
    this.flush();
  }
}

export function writeReport(batch: ReportBatch, results: ReportResults, opts: ReportOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const writer = new ReportWriter(batch.format, reportWidth(batch), (b) => parts.push(b), opts);
  for (const { row, result } of resolveResults(batch, results)) writer.row(row.cells, result);
  if (batch.totalRow) writer.totalRow(batch.totalRow.cells);
  writer.end();
  return Buffer.concat(parts);
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
  /** The first ten rows whose amount could not be read, when the entries named their rows. */
  unreadableRows: number[];
  text: string;
}

/** Running count, sum and unreadable count of one state (or of the whole file). */
class Tally {
  count = 0;
  kopecks = 0;
  unreadable = 0;

  add(amount: number | null): void {
    this.count++;
    if (amount === null) this.unreadable++;
    else this.kopecks = sumKopecks([this.kopecks, amount]);
  }

  view(): StateSummary {
    const { count, kopecks, unreadable } = this;
    return { count, kopecks, formatted: formatRubles(kopecks), unreadable };
  }
}

/** Rows with an unreadable amount the summary names; the rest are counted. */
const UNREADABLE_ROWS_SHOWN = 10;

/**
 * Counts and amounts by state, added one row at a time (a report of any size is summarised without
 * holding its rows). amount: the row's kopecks as read from its amount cell (for an invalid row too,
 * so paid + failed + invalid add up to the file total); null or absent when it could not be read,
 * which the summary says instead of counting it as 0,00.
 */
export class Summarizer {
  private readonly groups = new Map<string, Tally>();
  private readonly all = new Tally();
  private readonly unreadableRows: number[] = [];
  private unreadableRowCount = 0;

  add({ state, amount, row }: { state: string; amount?: number | null; row?: number }): void {
    const key = state || 'not_processed';
    const value = amount ?? null;
    let tally = this.groups.get(key);
    if (!tally) this.groups.set(key, (tally = new Tally()));
    tally.add(value);
    this.all.add(value);
    if (value === null && row !== undefined) {
      this.unreadableRowCount++;
      if (this.unreadableRows.length < UNREADABLE_ROWS_SHOWN) this.unreadableRows.push(row);
    }
  }

  result(): Summary {
    const byState: Record<string, StateSummary> = {};
    for (const [state, tally] of this.groups) byState[state] = tally.view();
    const total = this.all.view();
    const parts = Object.entries(byState).map(([state, part]) => t('summary.part', { state, part }));
    const text = t('summary.text', {
      total,
      unreadableRows: this.unreadableRows,
      unreadableRowCount: this.unreadableRowCount,
      parts,
    });
    return { rows: total.count, byState, total, unreadableRows: [...this.unreadableRows], text };
  }
}

export function summarize(
  results: Iterable<{ state: string; amount?: number | null; row?: number }>,
): Summary {
  const summarizer = new Summarizer();
  for (const r of results) summarizer.add(r);
  return summarizer.result();
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
