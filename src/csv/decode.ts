/**
 * Bytes → text, and the file's own conventions (encoding, BOM, delimiter, line ending), so the
 * report can be written back the same way.
 */
import iconv from 'iconv-lite';
import type { Delimiter, Encoding } from './types';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export class EncodingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodingError';
  }
}

export interface Decoded {
  text: string;
  encoding: Encoding;
  bom: boolean;
  /**
   * Set when the text was decoded as Windows-1251 and its cells must be checked for UTF-8 among them
   * (checkEncoding): the encoding the file claims, or 'majority' when none was claimed. Unset when the
   * whole file decoded as UTF-8, which leaves no room for Windows-1251 bytes.
   */
  check?: Encoding | 'majority';
}

/**
 * A UTF-8 BOM means UTF-8. Otherwise the bytes are UTF-8 when they decode as valid UTF-8
 * (Cyrillic Windows-1251 text practically never does), else Windows-1251. A file claimed UTF-8 (BOM
 * or option) that is not valid UTF-8 is decoded as Windows-1251 too, only so that its cells can be
 * checked: it is refused either way, as not UTF-8 or as mixing encodings.
 */
export function decodeBytes(bytes: Buffer, encoding?: Encoding): Decoded {
  const bom = bytes.subarray(0, 3).equals(UTF8_BOM);
  const body = bom ? bytes.subarray(3) : bytes;
  if (encoding === 'windows-1251') {
    if (bom)
      throw new EncodingError('the file starts with a UTF-8 byte order mark but windows-1251 was stated');
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

export function encodeText(text: string, encoding: Encoding, bom: boolean): Buffer {
  if (encoding === 'windows-1251') return iconv.encode(text, 'win1251');
  const body = Buffer.from(text, 'utf8');
  return bom ? Buffer.concat([UTF8_BOM, body]) : body;
}

/** Counts ',' and ';' on the header line (outside quotes); the more frequent one wins, ',' on a tie. */
export function detectDelimiter(text: string): Delimiter {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) {
      if (commas + semicolons > 0) break; // the header is the first non-blank line
    } else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
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
