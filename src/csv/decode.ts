/**
 * Bytes → text, and the file's own conventions (encoding, BOM, delimiter, line ending), so the
 * report can be written back the same way.
 */
import { t, writableIn, type Lang } from '../i18n';
import iconv from 'iconv-lite';
import type { Delimiter, Encoding, FileEncoding } from './types';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
const UTF16BE_BOM = Buffer.from([0xfe, 0xff]);

export class EncodingError extends Error {
  constructor(
    message: string,
    /** 'encoding' (a known encoding, wrongly stated or broken) or 'file_unreadable' (not text at all). */
    readonly rule: 'encoding' | 'file_unreadable' = 'encoding',
  ) {
    super(message);
    this.name = 'EncodingError';
  }
}

export interface Decoded {
  text: string;
  encoding: FileEncoding;
  bom: boolean;
  /**
   * Set when the text was decoded as Windows-1251 and its cells must be checked for UTF-8 among them
   * (checkEncoding): the encoding the file claims, or 'majority' when none was claimed. Unset when the
   * whole file decoded as UTF-8 (or UTF-16), which leaves no room for Windows-1251 bytes.
   */
  check?: Encoding | 'majority';
}

/** iconv-lite's name of each encoding. */
export const ICONV_NAME: Record<FileEncoding, string> = {
  'utf-8': 'utf8',
  'windows-1251': 'win1251',
  'utf-16le': 'utf16le',
  'utf-16be': 'utf16be',
};

/** The byte order mark at the start of `head`, if any: the encoding it announces and its length. */
export function byteOrderMark(head: Buffer): { encoding: FileEncoding; length: number } | undefined {
  if (head.subarray(0, 3).equals(UTF8_BOM)) return { encoding: 'utf-8', length: 3 };
  if (head.subarray(0, 2).equals(UTF16LE_BOM)) return { encoding: 'utf-16le', length: 2 };
  if (head.subarray(0, 2).equals(UTF16BE_BOM)) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** How much of a file's start is looked at to tell text from binary data. */
export const SNIFF_BYTES = 64 * 1024;
/** Control bytes no CSV text holds (tab, line feed and carriage return excluded). */
const isControlByte = (b: number): boolean =>
  b < 0x20 ? b !== 0x09 && b !== 0x0a && b !== 0x0d : b === 0x7f;

/** Control characters no CSV text holds (tab, line feed and carriage return excluded), and U+FFFD. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/;
/** A CSV header line holds at least one of these. */
const CSV_PUNCTUATION = /[,;\t\n]/;

/**
 * Whether the bytes at one parity (0: even positions, 1: odd) look like UTF-16's high bytes: NULs
 * (ASCII: digits, separators, line breaks) and, for most of the rest, one other value (0x04 for
 * Cyrillic). Nine in ten positions at the least; any text in one script with its punctuation passes,
 * bytes of other text or binary data spread over many values.
 */
function highBytesAt(head: Buffer, length: number, parity: 0 | 1): boolean {
  const counts = new Array<number>(256).fill(0);
  for (let i = parity; i < length; i += 2) counts[head[i]!]!++;
  const script = Math.max(...counts.slice(1));
  return counts[0]! > 0 && (counts[0]! + script) * 10 >= (length / 2) * 9;
}

/**
 * UTF-16 without a byte order mark, told by where its NULs sit rather than by how many there are:
 * each character is two bytes, and the high one is 0x00 for ASCII and 0x04 for Cyrillic, so NULs
 * fall at odd positions in little-endian and at even ones in big-endian, practically never in the low
 * byte. A Cyrillic-heavy file has only ~24 % NUL bytes, but all on one side; binary data has them on
 * both. The head must then read as text: no control characters, no broken surrogate pairs, some CSV
 * punctuation. Undefined when the head is not such text.
 */
export function utf16WithoutBom(head: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  const length = head.length & ~1; // a head cut mid-character still shows the pattern
  let nulAtEven = 0;
  let nulAtOdd = 0;
  for (let i = 0; i < length; i++) {
    if (head[i] !== 0) continue;
    if (i % 2 === 0) nulAtEven++;
    else nulAtOdd++;
  }
  // Ten to one at the least: a rare character such as U+0100 or U+0400 puts a NUL in the low byte.
  const encoding =
    nulAtOdd > 0 && nulAtEven * 10 < nulAtOdd && highBytesAt(head, length, 1)
      ? 'utf-16le'
      : nulAtEven > 0 && nulAtOdd * 10 < nulAtEven && highBytesAt(head, length, 0)
        ? 'utf-16be'
        : undefined;
  if (!encoding) return undefined;
  const text = new TextDecoder(encoding).decode(head.subarray(0, length));
  // A head cut inside a surrogate pair ends in one U+FFFD: allowed only as the very last character.
  const whole = text.replace(/\ufffd$/, '');
  return !NOT_TEXT.test(whole) && CSV_PUNCTUATION.test(whole) ? encoding : undefined;
}

/**
 * Why the start of a file with no UTF-16 in it (utf16WithoutBom said no, and no UTF-16 byte order
 * mark) is not text at all, or undefined when it may be text. A spreadsheet's CSV (UTF-8 or
 * Windows-1251) never holds a NUL byte and practically no other control bytes; random or binary data
 * holds them everywhere (one byte in eight), which is how it is told apart from text that merely
 * mixes two encodings.
 */
export function whyNotText(head: Buffer): string | undefined {
  if (head.length === 0) return undefined;
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return t('csv.file_zip');
  let nul = 0;
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (b === 0) nul++;
    if (isControlByte(b)) control++;
  }
  if (nul > 0 || control > head.length / 100) return t('csv.file_binary');
  return undefined;
}

/**
 * A UTF-8 BOM means UTF-8, a UTF-16 BOM (Excel's "Unicode text") UTF-16 of that byte order, and
 * so does UTF-16's pattern of NULs without a BOM (utf16WithoutBom). Otherwise the bytes are UTF-8 when they decode as valid UTF-8 (Cyrillic Windows-1251 text
 * practically never does), else Windows-1251. A file claimed UTF-8 (BOM or option) that is not
 * valid UTF-8 is decoded as Windows-1251 too, only so that its cells can be checked: it is refused
 * either way, as not UTF-8 or as mixing encodings. Bytes that are not text at all are refused first.
 */
export function decodeBytes(bytes: Buffer, encoding?: Encoding): Decoded {
  const mark = byteOrderMark(bytes);
  if (mark && mark.encoding !== 'utf-8') {
    if (encoding)
      throw new EncodingError(
        t('csv.bom_mismatch', { bom: FILE_ENCODING_NAME[mark.encoding], stated: encoding }),
      );
    return {
      text: iconv.decode(bytes.subarray(mark.length), ICONV_NAME[mark.encoding], { stripBOM: false }),
      encoding: mark.encoding,
      bom: true,
    };
  }
  const utf16 = bytes.length % 2 === 0 ? utf16WithoutBom(bytes.subarray(0, SNIFF_BYTES)) : undefined;
  if (utf16) {
    if (encoding)
      throw new EncodingError(
        t('csv.utf16_stated_other', { found: FILE_ENCODING_NAME[utf16], stated: encoding }),
      );
    return { text: iconv.decode(bytes, ICONV_NAME[utf16], { stripBOM: false }), encoding: utf16, bom: false };
  }
  const notText = whyNotText(bytes.subarray(0, SNIFF_BYTES));
  if (notText) throw new EncodingError(notText, 'file_unreadable');
  const bom = mark !== undefined;
  const body = bom ? bytes.subarray(3) : bytes;
  if (encoding === 'windows-1251') {
    if (bom) throw new EncodingError(t('csv.bom_mismatch', { bom: 'UTF-8', stated: 'windows-1251' }));
    return { text: iconv.decode(body, 'win1251'), encoding, bom: false, check: 'windows-1251' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8', bom };
  } catch {
    const claimed = encoding === 'utf-8' || bom;
    return {
      text: iconv.decode(body, 'win1251'),
      encoding: claimed ? 'utf-8' : 'windows-1251',
      bom,
      check: claimed ? 'utf-8' : 'majority',
    };
  }
}

export const FILE_ENCODING_NAME: Record<FileEncoding, string> = {
  'utf-8': 'UTF-8',
  'windows-1251': 'Windows-1251',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
};

/**
 * Text in the file's encoding; `bom`: with the byte order mark of that encoding in front. Signs
 * Windows-1251 lacks are spelled out in `lang` (writableIn), never written as `?`.
 */
export function encodeText(text: string, encoding: FileEncoding, bom: boolean, lang?: Lang): Buffer {
  if (encoding === 'windows-1251') return iconv.encode(writableIn(text, encoding, lang), 'win1251');
  const body = iconv.encode(text, ICONV_NAME[encoding], { addBOM: false });
  if (!bom) return body;
  const mark = encoding === 'utf-8' ? UTF8_BOM : encoding === 'utf-16le' ? UTF16LE_BOM : UTF16BE_BOM;
  return Buffer.concat([mark, body]);
}

/**
 * Counts ',', ';' and tabs on the header line (outside quotes); the most frequent one wins, ',' on a
 * tie. Tabs are what Excel's "Unicode text" export separates cells with.
 */
export function detectDelimiter(text: string): Delimiter {
  let commas = 0;
  let semicolons = 0;
  let tabs = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) {
      if (commas + semicolons + tabs > 0) break; // the header is the first non-blank line
    } else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
    else if (!quoted && ch === '\t') tabs++;
  }
  if (tabs > commas && tabs > semicolons) return '\t';
  return semicolons > commas ? ';' : ',';
}

/** The first line break outside quotes decides; files without one are written back with CRLF. */
export function detectLineEnding(text: string): '\r\n' | '\n' {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '\n') return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
  }
  return '\r\n';
}
