/**
 * Bytes → text, and the file's own conventions (encoding, BOM, delimiter, line ending), so the
 * report can be written back the same way.
 */
import { t } from '../i18n';
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

/**
 * Why the start of a file without a UTF-16 byte order mark is not text at all, or undefined when it
 * may be text. A spreadsheet's CSV (UTF-8 or Windows-1251) never holds a NUL byte and practically no
 * other control bytes; random or binary data holds them everywhere (one byte in eight), which is how
 * it is told apart from text that merely mixes two encodings.
 */
export function whyNotText(head: Buffer): string | undefined {
  if (head.length === 0) return undefined;
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return t('csv.file_zip');
  let nulAtOdd = 0;
  let nul = 0;
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (b === 0) {
      nul++;
      if (i % 2 === 1) nulAtOdd++;
    }
    if (isControlByte(b)) control++;
  }
  if (nul > 0 && nul >= head.length / 4 && (nulAtOdd > nul * 0.9 || nulAtOdd < nul * 0.1))
    return t('csv.file_utf16_no_bom');
  if (nul > 0 || control > head.length / 100) return t('csv.file_binary');
  return undefined;
}

/**
 * A UTF-8 BOM means UTF-8, a UTF-16 BOM (Excel's "Unicode text") UTF-16 of that byte order.
 * Otherwise the bytes are UTF-8 when they decode as valid UTF-8 (Cyrillic Windows-1251 text
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

/** Text in the file's encoding; `bom`: with the byte order mark of that encoding in front. */
export function encodeText(text: string, encoding: FileEncoding, bom: boolean): Buffer {
  if (encoding === 'windows-1251') return iconv.encode(text, 'win1251');
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
