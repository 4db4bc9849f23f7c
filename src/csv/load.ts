/**
 * loadBatch: bytes of a batch file → every row validated, the accepted payout requests under the
 * policy, and file-level errors. Pure and synchronous; no money moves here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { t } from '../i18n';
import { sumKopecks } from '../money';
import { decodeBytes, detectDelimiter, detectLineEnding, EncodingError, FILE_ENCODING_NAME } from './decode';
import { checkEncoding, type EncodingCheck } from './encoding';
import { columnForHeader, mapHeaders, TOTAL_MARKERS } from './format';
import type {
  AmountColumn,
  BatchFormat,
  BatchRow,
  Encoding,
  LoadedBatch,
  LoadOptions,
  RowError,
} from './types';
import { moscowDate, type PayoutRequest } from '../domain';
import { payoutLimit } from './limits';
import { markDuplicateReferences, readAmount, totalRowPositionError, validateRow } from './validate';

/** sha256 hex of the file's bytes; the batch id derives from it. */
export function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One INN per line; '#' starts a comment; blank lines ignored. Throws on a line that is not a 10- or 12-digit INN. */
export function loadStopList(path: string): Set<string> {
  const list = new Set<string>();
  readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      const inn = line.replace(/#.*/, '').trim();
      if (!inn) return;
      if (!/^(\d{10}|\d{12})$/.test(inn)) {
        throw new Error(`stop-list ${path} line ${i + 1}: "${inn}" is not a 10- or 12-digit tax number`);
      }
      list.add(inn);
    });
  return list;
}

const isBlank = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

/** Rejected before row validation: rows (if any) are listed unvalidated, none of them valid. */
function rejectedBatch(format: BatchFormat, fileErrors: RowError[], rows: BatchRow[] = []): LoadedBatch {
  return {
    format,
    rows,
    accepted: [],
    fileErrors,
    totals: { rows: rows.length, valid: 0, invalid: rows.length, acceptedKopecks: 0 },
    rejected: true,
  };
}

/** Every non-blank record after the header, unvalidated, with its amount when the amount column is known. */
function unvalidatedRows(
  records: readonly string[][],
  headerIndex: number,
  amount: { index: number | undefined; column: AmountColumn },
): BatchRow[] {
  const rows: BatchRow[] = [];
  records.forEach((cells, i) => {
    if (i <= headerIndex || isBlank(cells)) return;
    const row: BatchRow = { row: i + 1, cells, errors: [] };
    if (amount.index !== undefined)
      row.kopecks = readAmount(cells[amount.index] ?? '', amount.column).kopecks;
    rows.push(row);
  });
  return rows;
}

/** A file whose cells are not all in the encoding it claims (or most of it is in): its file error and rows. */
function mixedEncoding(format: BatchFormat, check: Extract<EncodingCheck, { kind: 'mixed' }>): LoadedBatch {
  const { records, offending, encoding } = check;
  const other: Encoding = encoding === 'utf-8' ? 'windows-1251' : 'utf-8';
  const headerIndex = records.findIndex((cells) => !isBlank(cells));
  const headers = records[headerIndex] ?? [];
  const headerMap = mapHeaders(headers);
  format.encoding = encoding;
  format.headers = headers;
  format.amountColumn = headerMap.amountColumn;
  const first = offending[0]!;
  const column = first > headerIndex ? (columnForHeader(headers[check.cell] ?? '') ?? null) : null;
  const message = t('csv.encoding_mixed', {
    rows: offending.map((i) => i + 1),
    other: FILE_ENCODING_NAME[other],
    encoding: FILE_ENCODING_NAME[encoding],
  });
  return rejectedBatch(
    format,
    [{ row: first + 1, column, rule: 'encoding_mixed', message }],
    unvalidatedRows(records, headerIndex, {
      index: headerMap.index[headerMap.amountColumn],
      column: headerMap.amountColumn,
    }),
  );
}

export function loadBatch(bytes: Buffer, opts: LoadOptions = {}): LoadedBatch {
  const policy = opts.policy ?? 'whole-file';
  let decoded;
  try {
    decoded = decodeBytes(bytes, opts.encoding);
  } catch (e) {
    if (!(e instanceof EncodingError)) throw e;
    const format: BatchFormat = {
      encoding: opts.encoding ?? 'utf-8',
      bom: false,
      delimiter: opts.delimiter ?? ',',
      amountColumn: 'amount',
      headers: [],
      lineEnding: '\r\n',
    };
    return rejectedBatch(format, [{ row: 1, column: null, rule: e.rule, message: e.message }]);
  }
  const { text, encoding, bom } = decoded;
  const delimiter = opts.delimiter ?? detectDelimiter(text);
  const format: BatchFormat = {
    encoding,
    bom,
    delimiter,
    amountColumn: 'amount',
    headers: [],
    lineEnding: detectLineEnding(text),
  };
  const notUtf8 = (): LoadedBatch =>
    rejectedBatch(format, [{ row: 1, column: null, rule: 'encoding', message: t('csv.not_utf8') }]);

  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
    });
  } catch (e) {
    if (decoded.check === 'utf-8') return notUtf8();
    const line = (e as { lines?: number }).lines;
    const message = t('csv.csv_syntax', { error: (e as Error).message });
    return rejectedBatch(format, [{ row: line ?? 1, column: null, rule: 'csv_syntax', message }]);
  }

  if (decoded.check) {
    const check = checkEncoding(records, decoded.check);
    if (check.kind === 'not_utf8') return notUtf8();
    if (check.kind === 'not_1251') {
      const message = t('csv.not_1251', { row: check.index + 1 });
      return rejectedBatch(format, [{ row: check.index + 1, column: null, rule: 'encoding', message }]);
    }
    if (check.kind === 'mixed') return mixedEncoding(format, check);
  }

  // Spreadsheet row n is record n-1: blank rows keep their numbers but are not data rows.
  const headerIndex = records.findIndex((cells) => !isBlank(cells));
  if (headerIndex < 0) {
    return rejectedBatch(format, [
      { row: 1, column: null, rule: 'empty_file', message: t('csv.empty_file') },
    ]);
  }
  const headers = records[headerIndex]!;
  const headerRow = headerIndex + 1;
  const headerMap = mapHeaders(headers);
  format.headers = headers;
  format.amountColumn = headerMap.amountColumn;
  if (headerMap.problems.length > 0) {
    return rejectedBatch(
      format,
      headerMap.problems.map((p) => ({ row: headerRow, column: p.column, rule: p.rule, message: p.message })),
      unvalidatedRows(records, headerIndex, {
        // Both amount columns present: neither is the amount, so none is read.
        index: headerMap.problems.some((p) => p.rule === 'amount_columns')
          ? undefined
          : headerMap.index[headerMap.amountColumn],
        column: headerMap.amountColumn,
      }),
    );
  }

  const refIndex = headerMap.index.reference!;
  const amountIndex = headerMap.index[headerMap.amountColumn]!;
  let lastDataIndex = records.length - 1;
  while (lastDataIndex > headerIndex && isBlank(records[lastDataIndex]!)) lastDataIndex--;
  const isTotal = (cells: readonly string[]): boolean =>
    TOTAL_MARKERS.has((cells[refIndex] ?? '').trim().toLowerCase());

  let totalRow: LoadedBatch['totalRow'];
  if (lastDataIndex > headerIndex && isTotal(records[lastDataIndex]!)) {
    const cells = records[lastDataIndex]!;
    totalRow = {
      row: lastDataIndex + 1,
      cells,
      kopecks: readAmount(cells[amountIndex] ?? '', headerMap.amountColumn).kopecks,
    };
    lastDataIndex--;
  }

  const ctx = {
    index: headerMap.index,
    amountColumn: headerMap.amountColumn,
    headerLength: headers.length,
    stopList: opts.stopList,
    maxPayoutKopecks: payoutLimit(opts.maxPayoutKopecks),
    today: opts.today ?? moscowDate(Date.now()),
    scheduled: { count: 0 },
  };
  const rows: BatchRow[] = [];
  const amounts: number[] = [];
  const unreadable: number[] = [];
  for (let i = headerIndex + 1; i <= lastDataIndex; i++) {
    const cells = records[i]!;
    if (isBlank(cells)) continue;
    const row = i + 1;
    const outcome = validateRow(cells, row, ctx);
    if (isTotal(cells)) {
      outcome.errors.push(totalRowPositionError(row));
      delete outcome.request;
    }
    if (outcome.kopecks === null) unreadable.push(row);
    else amounts.push(outcome.kopecks);
    rows.push({
      row,
      cells,
      ...(outcome.request && { request: outcome.request }),
      errors: outcome.errors,
      kopecks: outcome.kopecks,
    });
  }
  markDuplicateReferences(rows, refIndex);

  const fileErrors: RowError[] = [];
  if (rows.length === 0) {
    fileErrors.push({
      row: headerRow,
      column: null,
      rule: 'empty_file',
      message: t('csv.no_rows'),
    });
  }
  const actual = sumKopecks(amounts);
  const checkTotal = (
    expected: number | null,
    source: 'expected' | 'total_row',
    row: number,
    column: string | null,
  ): void => {
    if (expected === actual && unreadable.length === 0) return;
    fileErrors.push({
      row,
      column,
      rule: 'control_total',
      message: t('csv.control_total', { source, expected, actual, unreadableRows: unreadable }),
    });
  };
  if (opts.expectTotalKopecks !== undefined) checkTotal(opts.expectTotalKopecks, 'expected', headerRow, null);
  if (totalRow) checkTotal(totalRow.kopecks, 'total_row', totalRow.row, headerMap.amountColumn);

  const valid = rows.filter((r) => r.request);
  const rejected = fileErrors.length > 0 || (policy === 'whole-file' && valid.length < rows.length);
  const accepted: PayoutRequest[] = rejected ? [] : valid.map((r) => r.request!);
  return {
    format,
    rows,
    accepted,
    fileErrors,
    totals: {
      rows: rows.length,
      valid: valid.length,
      invalid: rows.length - valid.length,
      acceptedKopecks: sumKopecks(accepted.map((r) => r.amount)),
    },
    rejected,
    ...(totalRow && { totalRow }),
  };
}
