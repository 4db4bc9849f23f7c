/** The output model of a loaded batch file. The payout itself, PayoutRequest, is the domain's (src/domain/payout.ts). */
import type { PayoutRequest } from '../domain';

/** row: 1-based row as a spreadsheet shows it (header = row 1); column: canonical column name, or null. */
export interface RowError {
  row: number;
  column: string | null;
  rule: string;
  message: string;
}

/** The encodings a file may be stated to be in. */
export type Encoding = 'utf-8' | 'windows-1251';
/** The encodings a file is read in: UTF-16 only with its byte order mark (Excel's "Unicode text"). */
export type FileEncoding = Encoding | 'utf-16le' | 'utf-16be';
/** Tab: Excel's "Unicode text" export. */
export type Delimiter = ',' | ';' | '\t';
export type AmountColumn = 'amount' | 'amount_kopecks';

export interface BatchFormat {
  encoding: FileEncoding;
  bom: boolean;
  delimiter: Delimiter;
  amountColumn: AmountColumn;
  /** The header cells exactly as they are in the file. */
  headers: string[];
  lineEnding: '\r\n' | '\n';
}

export interface BatchRow {
  row: number;
  /** The row's cells exactly as parsed (unquoted, untrimmed). */
  cells: string[];
  request?: PayoutRequest;
  errors: RowError[];
  /**
   * The amount cell in kopecks whenever it reads as a sum of money, valid or not (zero and negative
   * included); null when it does not (blank, "сто", three decimals…); absent when the file was
   * refused before its amount column was known. Summaries and the control total use it.
   */
  kopecks?: number | null;
}

export interface LoadedBatch {
  format: BatchFormat;
  /** Every data row, in order, nothing dropped (fully blank rows and the total row are not data rows). */
  rows: BatchRow[];
  /** What may be paid under the policy. */
  accepted: PayoutRequest[];
  /** File-level: missing columns, control total, empty file. */
  fileErrors: RowError[];
  totals: { rows: number; valid: number; invalid: number; acceptedKopecks: number };
  /** Whole file rejected under the policy. */
  rejected: boolean;
  /** The control-total row (reference cell TOTAL / ИТОГО), when the file has one; not a data row. */
  totalRow?: { row: number; cells: string[]; kopecks: number | null };
}

export type Policy = 'whole-file' | 'partial';

export interface LoadOptions {
  encoding?: Encoding;
  delimiter?: Delimiter;
  policy?: Policy;
  expectTotalKopecks?: number;
  stopList?: ReadonlySet<string>;
  /** The most one payout may be; above it a row is refused (amount_above_limit). Default: PAYRUN_MAX_PAYOUT, else 1 000 000,00 ₽. */
  maxPayoutKopecks?: number;
  /**
   * The Moscow day a row's pay_on is judged from (not in the past, at most a year ahead), YYYY-MM-DD.
   * Kept with the batch (the day it was submitted), so the worker loading the approved file again on a
   * later day reads the same rows. Default: today.
   */
  today?: string;
}
