/**
 * loadBatch for a file of any size, a row at a time in bounded memory: the same decoding (UTF-8,
 * Windows-1251, UTF-16 with and without a byte order mark), rules, row numbers, duplicate references,
 * control total and policy, with the file's sha256 taken from the same bytes. Each valid row goes to
 * `onValid` as it is read (the submitter seals it into the store's chunks); each row error is kept on
 * disk (SpillLog), duplicates are found by a DuplicateIndex. A file refused for a reason that needs
 * it whole (cells in two encodings, broken CSV syntax) is read again by loadBatch: those are refused
 * anyway, and loadBatch's answer is exact.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { t } from '../i18n';
import { moscowDate, type PayoutRequest } from '../domain';
import {
  byteOrderMark,
  detectDelimiter,
  detectLineEnding,
  EncodingError,
  ICONV_NAME,
  utf16WithoutBom,
  whyNotText,
} from './decode';
import { DuplicateIndex, type Duplicates } from './duplicates';
import { utf8Hidden } from './encoding';
import { mapHeaders, TOTAL_MARKERS } from './format';
import { payoutLimit } from './limits';
import { loadBatch } from './load';
import { isBlank, isUtf8File, readHead } from './stream';
import { mergeBy, SpillLog, SPILL_LIMIT } from './spill';
import type { BatchFormat, FileEncoding, LoadOptions, RowError } from './types';
import { readAmount, type RowContext, totalRowPositionError, validateRow } from './validate';

export interface StreamOptions extends LoadOptions {
  /** Items the duplicate index keeps in memory before it spills (tests force a spill with a few). */
  spillLimit?: number;
}

export interface StreamedBatch {
  format: BatchFormat;
  /** sha256 of the bytes read: the caller compares it with the hash it named the batch by. */
  contentHash: string;
  fileErrors: RowError[];
  totals: { rows: number; valid: number; invalid: number; acceptedKopecks: number };
  rejected: boolean;
  totalRow?: { row: number; kopecks: number | null };
  /** How many errors errors() yields. */
  errorCount: number;
  /** Every error: the file's first, then each row's in row order (its duplicate reference last). */
  errors(): AsyncGenerator<RowError>;
  /** How many rows handed to onValid share their reference with another row. */
  duplicateValid: number;
  /** Rows handed to onValid that share their reference with another row (so are not valid), ascending. */
  duplicateValidRows(): AsyncGenerator<number>;
  /** Removes the temp files. */
  close(): void;
}

/** A valid row (duplicates aside, found only at the end), in row order. */
export type OnValid = (row: number, request: PayoutRequest) => void | Promise<void>;

/** How to read the file: decodeBytes' decisions, taken from its head and one streaming UTF-8 check. */
type Reading = { encoding: FileEncoding; bom: boolean; skip: number; checkCells: boolean };

/** Throws EncodingError where decodeBytes does; 'whole' where only a whole-file check can answer. */
async function chooseReading(path: string, stated: LoadOptions['encoding']): Promise<Reading | 'whole'> {
  const head = await readHead(path);
  const mark = byteOrderMark(head);
  if (mark && mark.encoding !== 'utf-8') {
    if (stated) return 'whole'; // refused: a byte order mark against the stated encoding
    return { encoding: mark.encoding, bom: true, skip: mark.length, checkCells: false };
  }
  const utf16 = statSync(path).size % 2 === 0 ? utf16WithoutBom(head) : undefined;
  if (utf16) {
    if (stated) return 'whole';
    return { encoding: utf16, bom: false, skip: 0, checkCells: false };
  }
  const notText = whyNotText(head);
  if (notText) throw new EncodingError(notText, 'file_unreadable');
  const bom = mark !== undefined;
  const skip = bom ? 3 : 0;
  if (stated === 'windows-1251') {
    if (bom) return 'whole';
    return { encoding: 'windows-1251', bom: false, skip: 0, checkCells: true };
  }
  if (await isUtf8File(path, skip)) return { encoding: 'utf-8', bom, skip, checkCells: false };
  // Claimed UTF-8 and not: refused either way (not UTF-8, or mixed), with loadBatch's exact answer.
  if (stated === 'utf-8' || bom) return 'whole';
  return { encoding: 'windows-1251', bom, skip, checkCells: true };
}

/** Thrown inside the read to hand the file to loadBatch. */
class NeedsWholeFile extends Error {}

/** Every record with its record number (1-based; blank ones included), hashing every byte read. */
async function* records(
  path: string,
  reading: Reading,
  delimiter: string,
  hash: ReturnType<typeof createHash>,
) {
  const source = createReadStream(path);
  const decoder = iconv.decodeStream(ICONV_NAME[reading.encoding], { stripBOM: false });
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false });
  let skip = reading.skip;
  source.on('data', (chunk) => {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    // The byte order mark is hashed (it is the file's) but not decoded, as decodeBytes strips it.
    if (skip > 0) {
      const body = bytes.subarray(Math.min(skip, bytes.length));
      skip -= bytes.length - body.length;
      if (body.length > 0) decoder.write(body);
    } else if (!decoder.write(bytes)) {
      source.pause();
      decoder.once('drain', () => source.resume());
    }
  });
  source.on('end', () => decoder.end());
  source.on('error', (e) => parser.destroy(e));
  decoder.on('error', (e) => parser.destroy(e));
  decoder.pipe(parser);
  let index = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) yield { row: ++index, cells };
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('CSV_')) throw new NeedsWholeFile();
    throw e;
  } finally {
    source.destroy();
  }
}

/** loadBatch's answer for a file refused for a reason only the whole file shows. */
function fromWholeFile(path: string, opts: LoadOptions, hash: string): StreamedBatch {
  const loaded = loadBatch(readFileSync(path), opts);
  const rowErrors = loaded.rows.flatMap((r) => r.errors);
  const all = [...loaded.fileErrors, ...rowErrors];
  return {
    format: loaded.format,
    contentHash: hash,
    fileErrors: loaded.fileErrors,
    totals: loaded.totals,
    rejected: loaded.rejected,
    ...(loaded.totalRow && { totalRow: { row: loaded.totalRow.row, kopecks: loaded.totalRow.kopecks } }),
    errorCount: all.length,
    errors: async function* () {
      yield* all;
    },
    duplicateValid: 0,
    duplicateValidRows: async function* () {},
    close: () => {},
  };
}

const hashFileSync = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** sha256 hex of a file's bytes, read a piece at a time (contentHash for a file of any size). */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The file at `path` checked as loadBatch(readFileSync(path), opts) would, in bounded memory. Valid
 * rows go to `onValid` in row order as they are read (awaited: a slow store slows the read); a row
 * later found to share its reference is listed by duplicateValidRows(). The caller closes the result.
 */
export async function streamBatch(
  path: string,
  opts: StreamOptions,
  onValid: OnValid,
): Promise<StreamedBatch> {
  const policy = opts.policy ?? 'whole-file';
  let reading: Reading | 'whole';
  try {
    reading = await chooseReading(path, opts.encoding);
  } catch (e) {
    if (!(e instanceof EncodingError)) throw e;
    return fromWholeFile(path, opts, await hashFile(path));
  }
  if (reading === 'whole') return fromWholeFile(path, opts, hashFileSync(path));
  const headText = iconv.decode((await readHead(path)).subarray(reading.skip), ICONV_NAME[reading.encoding], {
    stripBOM: false,
  });
  const format: BatchFormat = {
    encoding: reading.encoding,
    bom: reading.bom,
    delimiter: opts.delimiter ?? detectDelimiter(headText),
    amountColumn: 'amount',
    headers: [],
    lineEnding: detectLineEnding(headText),
  };
  const log = new SpillLog<RowError>();
  const index = new DuplicateIndex(opts.spillLimit ?? SPILL_LIMIT);
  let duplicates: Duplicates | undefined;
  const close = (): void => {
    log.close();
    duplicates?.rows.close();
  };
  const hash = createHash('sha256');
  try {
    const read = await readRows(path, reading, format, opts, hash, log, index, onValid);
    duplicates = await index.resolve();
    const contentHash = hash.digest('hex');
    const fileErrors = read.fileErrors();
    const rows = read.rows;
    const valid = read.valid - duplicates.validRows;
    const rejected = fileErrors.length > 0 || (policy === 'whole-file' && valid < rows);
    const dup = duplicates;
    return {
      format,
      contentHash,
      fileErrors,
      totals: {
        rows,
        valid,
        invalid: rows - valid,
        acceptedKopecks: rejected ? 0 : read.validKopecks - dup.validKopecks,
      },
      rejected,
      ...(read.totalRow && { totalRow: read.totalRow }),
      errorCount: fileErrors.length + log.count + dup.rows.count,
      errors: async function* () {
        yield* fileErrors;
        const dupErrors = (async function* () {
          for await (const [, , error] of dup.rows.sorted()) yield error;
        })();
        yield* mergeBy(log.items(), dupErrors, (e) => e.row);
      },
      duplicateValid: dup.validRows,
      duplicateValidRows: async function* () {
        for await (const [row, kopecks] of dup.rows.sorted()) if (kopecks !== null) yield row;
      },
      close,
    };
  } catch (e) {
    close();
    if (e instanceof NeedsWholeFile) return fromWholeFile(path, opts, hashFileSync(path));
    throw e;
  }
}

/** The one read: header, rows, the TOTAL row held back until the file's end shows it is last. */
async function readRows(
  path: string,
  reading: Reading,
  format: BatchFormat,
  opts: LoadOptions,
  hash: ReturnType<typeof createHash>,
  log: SpillLog<RowError>,
  index: DuplicateIndex,
  onValid: OnValid,
) {
  let header: ReturnType<typeof mapHeaders> | undefined;
  let headerRow = 0;
  let headerRejected = false;
  let rows = 0;
  let valid = 0;
  let validKopecks = 0;
  let amounts = 0;
  const unreadable: number[] = [];
  let held: { row: number; cells: string[] } | undefined;
  let ctx: RowContext | undefined;
  let refIndex = 0;
  let amountIndex = 0;
  const isTotal = (cells: readonly string[]): boolean =>
    TOTAL_MARKERS.has((cells[refIndex] ?? '').trim().toLowerCase());

  const take = async (row: number, cells: string[]): Promise<void> => {
    rows++;
    const outcome = validateRow(cells, row, ctx!);
    if (isTotal(cells)) {
      outcome.errors.push(totalRowPositionError(row));
      delete outcome.request;
    }
    if (outcome.kopecks === null) unreadable.push(row);
    else {
      amounts += outcome.kopecks;
      if (!Number.isSafeInteger(amounts)) throw new RangeError('kopeck total exceeds safe integer range');
    }
    for (const e of outcome.errors) log.add(e);
    const request = outcome.request;
    index.add((cells[refIndex] ?? '').trim(), row, request ? request.amount : null);
    if (!request) return;
    valid++;
    validKopecks += request.amount;
    await onValid(row, request);
  };

  for await (const { row, cells } of records(path, reading, format.delimiter, hash)) {
    if (reading.checkCells && cells.some((cell) => utf8Hidden(cell) !== null)) throw new NeedsWholeFile();
    if (isBlank(cells)) continue;
    if (!header) {
      header = mapHeaders(cells);
      headerRow = row;
      format.headers = cells;
      format.amountColumn = header.amountColumn;
      headerRejected = header.problems.length > 0;
      refIndex = header.index.reference ?? 0;
      amountIndex = header.index[header.amountColumn] ?? 0;
      ctx = {
        index: header.index,
        amountColumn: header.amountColumn,
        headerLength: cells.length,
        stopList: opts.stopList,
        maxPayoutKopecks: payoutLimit(opts.maxPayoutKopecks),
        today: opts.today ?? moscowDate(Date.now()),
        scheduled: { count: 0 },
      };
      continue;
    }
    if (headerRejected) {
      rows++; // listed unvalidated, none of them valid
      continue;
    }
    if (held) await take(held.row, held.cells);
    held = { row, cells };
  }
  let totalRow: { row: number; kopecks: number | null } | undefined;
  if (held && isTotal(held.cells)) {
    totalRow = {
      row: held.row,
      kopecks: readAmount(held.cells[amountIndex] ?? '', header!.amountColumn).kopecks,
    };
  } else if (held) await take(held.row, held.cells);

  const fileErrors = (): RowError[] => {
    if (!header) return [{ row: 1, column: null, rule: 'empty_file', message: t('csv.empty_file') }];
    if (headerRejected)
      return header.problems.map((p) => ({
        row: headerRow,
        column: p.column,
        rule: p.rule,
        message: p.message,
      }));
    const errors: RowError[] = [];
    if (rows === 0)
      errors.push({ row: headerRow, column: null, rule: 'empty_file', message: t('csv.no_rows') });
    const check = (
      expected: number | null,
      source: 'expected' | 'total_row',
      row: number,
      column: string | null,
    ) => {
      if (expected === amounts && unreadable.length === 0) return;
      errors.push({
        row,
        column,
        rule: 'control_total',
        message: t('csv.control_total', { source, expected, actual: amounts, unreadableRows: unreadable }),
      });
    };
    if (opts.expectTotalKopecks !== undefined) check(opts.expectTotalKopecks, 'expected', headerRow, null);
    if (totalRow) check(totalRow.kopecks, 'total_row', totalRow.row, header.amountColumn);
    return errors;
  };
  return { rows, valid, validKopecks, totalRow, fileErrors };
}
