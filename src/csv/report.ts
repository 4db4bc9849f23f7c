/**
 * The row-by-row report: every input row with its original cells, plus result columns, written in
 * the input file's own encoding, delimiter, line ending and BOM so it opens in the same spreadsheet.
 * Nothing here logs: the cells hold the accountant's card and account numbers.
 */
import { stringify } from 'csv-stringify/sync';
import { formatRubles, sumKopecks } from '../money';
import { encodeText } from './decode';
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

export function writeReport(batch: ReportBatch, results: ReportResults): Buffer {
  const { format } = batch;
  const inputRows = [...batch.rows.map((r) => r.cells), ...(batch.totalRow ? [batch.totalRow.cells] : [])];
  // Rows wider than the header (an unquoted delimiter) would push the result columns out of line: pad everything.
  const width = Math.max(format.headers.length, ...inputRows.map((cells) => cells.length));
  const pad = (cells: readonly string[]): string[] => [
    ...cells,
    ...Array<string>(width - cells.length).fill(''),
  ];
  const records: string[][] = [[...pad(format.headers), ...RESULT_COLUMNS]];
  for (const { row, result } of resolveResults(batch, results)) {
    records.push([...pad(row.cells), ...RESULT_COLUMNS.map((c) => result[c] ?? '')]);
  }
  if (batch.totalRow) records.push([...pad(batch.totalRow.cells), ...RESULT_COLUMNS.map(() => '')]);
  const text = stringify(records, { delimiter: format.delimiter, record_delimiter: format.lineEnding });
  return encodeText(text, format.encoding, format.bom);
}

export interface StateSummary {
  count: number;
  kopecks: number;
  formatted: string;
}

export interface Summary {
  rows: number;
  byState: Record<string, StateSummary>;
  total: StateSummary;
  text: string;
}

/** Counts and amounts by state. amount is the row's kopecks (undefined for rows that never became a request). */
export function summarize(results: Iterable<{ state: string; amount?: number }>): Summary {
  const groups = new Map<string, number[]>();
  const all: number[] = [];
  for (const { state, amount } of results) {
    const key = state || 'not_processed';
    const list = groups.get(key) ?? [];
    list.push(amount ?? 0);
    groups.set(key, list);
    all.push(amount ?? 0);
  }
  const describe = (amounts: number[]): StateSummary => {
    const kopecks = sumKopecks(amounts);
    return { count: amounts.length, kopecks, formatted: formatRubles(kopecks) };
  };
  const byState: Record<string, StateSummary> = {};
  for (const [state, amounts] of groups) byState[state] = describe(amounts);
  const total = describe(all);
  const parts = Object.entries(byState).map(([state, s]) => `${state} ${s.count} (${s.formatted} RUB)`);
  const text = `${total.count} rows, ${total.formatted} RUB${parts.length ? `: ${parts.join(', ')}` : ''}`;
  return { rows: total.count, byState, total, text };
}

/** summarize() over a batch and its results, the amounts taken from the rows' requests. */
export function summarizeReport(batch: ReportBatch, results: ReportResults): Summary {
  return summarize(
    resolveResults(batch, results).map(({ row, result }) => ({
      state: result.state,
      amount: row.request?.amount,
    })),
  );
}
