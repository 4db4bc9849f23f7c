/**
 * A batch file read as a stream of records, for files too large to hold whole (the report of a
 * paid batch): the same decoding, delimiter and row numbering as loadBatch, a piece at a time.
 * Only for a file loadBatch accepted: its encoding is not checked cell by cell again.
 */
import { moscowDate } from '../domain';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import {
  byteOrderMark,
  detectDelimiter,
  detectLineEnding,
  ICONV_NAME,
  SNIFF_BYTES,
  utf16WithoutBom,
} from './decode';
import { mapHeaders, TOTAL_MARKERS } from './format';
import { payoutLimit } from './limits';
import type { BatchFormat, FileEncoding, LoadOptions, RowError } from './types';
import { duplicateReferenceError, readAmount, totalRowPositionError, validateRow } from './validate';

export const isBlank = (cells: readonly string[]): boolean => cells.every((c) => c.trim() === '');

/** True when the whole file is valid UTF-8, read a piece at a time. */
export async function isUtf8File(path: string, skip: number): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(path, { start: skip }))
      decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return false;
    throw e;
  }
}

/** The file's first SNIFF_BYTES, where its encoding and delimiter are judged. */
export async function readHead(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The file's conventions as loadBatch finds them (headers are filled in by streamRecords' caller). */
export async function readFileFormat(
  path: string,
  opts: Pick<LoadOptions, 'encoding' | 'delimiter'>,
): Promise<BatchFormat> {
  const head = await readHead(path);
  const mark = byteOrderMark(head);
  let encoding: FileEncoding;
  const utf16 = mark ? undefined : utf16WithoutBom(head);
  if (mark) encoding = mark.encoding;
  else if (utf16) encoding = utf16;
  else if (opts.encoding) encoding = opts.encoding;
  else encoding = (await isUtf8File(path, 0)) ? 'utf-8' : 'windows-1251';
  // The head may end inside a character; the header line and first line break are well before that.
  const text = iconv.decode(head.subarray(mark?.length ?? 0), ICONV_NAME[encoding], { stripBOM: false });
  return {
    encoding,
    bom: mark !== undefined,
    delimiter: opts.delimiter ?? detectDelimiter(text),
    amountColumn: 'amount',
    headers: [],
    lineEnding: detectLineEnding(text),
  };
}

/**
 * Every non-blank record of the file with its spreadsheet row number (record n is row n+1, blank
 * rows keep their numbers), the header record first. The parser reads ahead a bounded amount.
 */
export async function* streamRecords(
  path: string,
  format: BatchFormat,
): AsyncGenerator<{ row: number; cells: string[] }> {
  const skip = format.bom ? (format.encoding === 'utf-8' ? 3 : 2) : 0;
  const source = createReadStream(path, { start: skip });
  const decoder = iconv.decodeStream(ICONV_NAME[format.encoding], { stripBOM: false });
  const parser = parse({
    delimiter: format.delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
  });
  // pipe() does not pass errors on: a file that vanished must end the iteration, not stall it.
  source.on('error', (e) => parser.destroy(e));
  decoder.on('error', (e) => parser.destroy(e));
  source.pipe(decoder).pipe(parser);
  let index = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      index++;
      if (!isBlank(cells)) yield { row: index, cells };
    }
  } finally {
    source.destroy();
  }
}

/**
 * loadBatch's rules for one row at a time, under the file's header. A row's cross-row errors come
 * from its caller: `sameReference`, every row of the file with this row's reference (a duplicate
 * when more than one), and whether it is a TOTAL row that is not last.
 */
export function rowRules(
  headers: readonly string[],
  opts: Pick<LoadOptions, 'stopList' | 'maxPayoutKopecks' | 'today'>,
) {
  const map = mapHeaders(headers);
  const { amountColumn } = map;
  const refIndex = map.index.reference;
  const amountIndex = map.index[amountColumn];
  const ctx = {
    index: map.index,
    amountColumn,
    headerLength: headers.length,
    stopList: opts.stopList,
    maxPayoutKopecks: payoutLimit(opts.maxPayoutKopecks),
    today: opts.today ?? moscowDate(Date.now()),
  };
  const reference = (cells: readonly string[]): string =>
    refIndex === undefined ? '' : (cells[refIndex] ?? '').trim();
  return {
    amountColumn,
    reference,
    isTotal: (cells: readonly string[]): boolean => TOTAL_MARKERS.has(reference(cells).toLowerCase()),
    kopecks: (cells: readonly string[]): number | null =>
      amountIndex === undefined ? null : readAmount(cells[amountIndex] ?? '', amountColumn).kopecks,
    errors(row: number, cells: readonly string[], sameReference: readonly number[]): RowError[] {
      const { errors } = validateRow(cells, row, ctx);
      if (TOTAL_MARKERS.has(reference(cells).toLowerCase())) errors.push(totalRowPositionError(row));
      if (sameReference.length > 1)
        errors.push(duplicateReferenceError(row, reference(cells), sameReference));
      return errors;
    },
  };
}
