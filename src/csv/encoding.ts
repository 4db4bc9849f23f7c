/**
 * Which encoding each cell is really in, and text that was garbled before it reached payrun.
 *
 * A file that is not valid UTF-8 as a whole is decoded as Windows-1251. Then every cell is looked at
 * again: a cell whose bytes (its Windows-1251 characters turned back into bytes) are valid UTF-8 with
 * non-ASCII characters is UTF-8, a cell with other non-ASCII bytes is Windows-1251. Cyrillic
 * Windows-1251 text is practically never valid UTF-8 (every lowercase letter is a byte UTF-8 forbids
 * or a lead byte that needs continuation bytes after it), so a file holding both kinds was put
 * together from two sources (e.g. rows pasted from a web form into a Windows-1251 export), and
 * whichever single encoding payrun chose, one part would come out as mojibake like "РЎРјРёСЂРЅРѕРІ".
 */
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import type { Encoding } from './types';

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** Windows-1251 byte → character; 0x98, unassigned, decodes to U+FFFD (and back). */
const CP1251 = iconv.decode(ALL_BYTES, 'win1251');
const CP1251_BYTE = new Map<string, number>([...CP1251].map((ch, b) => [ch, b]));

/** Windows-1252 byte → character; its five unassigned bytes read as Latin-1 (C1 controls), as most software shows them. */
const CP1252 = [...iconv.decode(ALL_BYTES, 'win1252')].map((ch, b) =>
  ch === '\ufffd' ? String.fromCharCode(b) : ch,
);

const escape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** A regex character class of what the given bytes decode to. */
const classOf = (table: readonly string[], bytes: readonly number[], extra: readonly string[] = []): string =>
  `[${[...bytes.map((b) => table[b]!), ...extra].map(escape).join('')}]`;
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** UTF-8 lead bytes (C2–F4) and continuation bytes (80–BF), as Windows-1251 shows them. */
const LEAD_IN_1251 = new Set(range(0xc2, 0xf4).map((b) => CP1251[b]!));
const CONTINUATION_IN_1251 = new Set(range(0x80, 0xbf).map((b) => CP1251[b]!));
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * For a cell decoded as Windows-1251: its text when its bytes are really UTF-8 (valid, non-ASCII),
 * else null (ASCII, or genuine Windows-1251).
 */
export function utf8Hidden(cell: string): string | null {
  // Valid UTF-8 starts its first non-ASCII character with a lead byte and a continuation byte;
  // genuine Windows-1251 words almost never do, so most cells stop here without building bytes.
  const i = cell.search(NON_ASCII);
  if (i < 0 || !LEAD_IN_1251.has(cell[i]!) || !CONTINUATION_IN_1251.has(cell[i + 1] ?? '')) return null;
  const bytes = Buffer.allocUnsafe(cell.length);
  for (let i = 0; i < cell.length; i++) bytes[i] = CP1251_BYTE.get(cell[i]!) ?? 0x3f;
  return isUtf8(bytes) ? bytes.toString('utf8') : null;
}

export type EncodingCheck =
  | { kind: 'ok' }
  /** UTF-8 was claimed (BOM or option) but no cell is UTF-8 text; or the invalid bytes are in no cell. */
  | { kind: 'not_utf8' }
  /** Windows-1251 was stated but every non-ASCII cell is UTF-8; the record index of the first. */
  | { kind: 'not_1251'; index: number }
  | {
      kind: 'mixed';
      /** The encoding most rows are in (or the claimed one); the offending rows are in the other. */
      encoding: Encoding;
      /** Record indexes (0-based) of rows with a cell in the other encoding, ascending. */
      offending: number[];
      /** Cell index of the first offending row's first offending cell. */
      cell: number;
      /** Every cell decoded by its own encoding, so the rejected file still reads right in the report. */
      records: string[][];
    };

/**
 * Classifies every cell of records decoded as Windows-1251. `claimed`: the encoding the file claims
 * (a BOM or the option), or 'majority' when payrun detected it: then the encoding most rows with
 * non-ASCII text use wins, and on a tie the first such row's.
 */
export function checkEncoding(records: readonly string[][], claimed: Encoding | 'majority'): EncodingCheck {
  const utf8Rows: number[] = [];
  const cp1251Rows: number[] = [];
  const hidden = new Map<number, Map<number, string>>();
  let first: Encoding | undefined;
  records.forEach((cells, r) => {
    let utf8 = false;
    let cp1251 = false;
    cells.forEach((cell, c) => {
      if (!NON_ASCII.test(cell)) return;
      const text = utf8Hidden(cell);
      if (text === null) cp1251 = true;
      else {
        utf8 = true;
        const row = hidden.get(r) ?? new Map<number, string>();
        row.set(c, text);
        hidden.set(r, row);
      }
    });
    if (utf8) utf8Rows.push(r);
    if (cp1251) cp1251Rows.push(r);
    first ??= utf8 && !cp1251 ? 'utf-8' : cp1251 && !utf8 ? 'windows-1251' : undefined;
  });
  if (utf8Rows.length === 0) return claimed === 'utf-8' ? { kind: 'not_utf8' } : { kind: 'ok' };
  if (cp1251Rows.length === 0) {
    if (claimed === 'windows-1251') return { kind: 'not_1251', index: utf8Rows[0]! };
    // Invalid bytes that sit in no cell: nothing here can be read with confidence.
    return { kind: 'not_utf8' };
  }
  const encoding: Encoding =
    claimed !== 'majority'
      ? claimed
      : utf8Rows.length !== cp1251Rows.length
        ? utf8Rows.length > cp1251Rows.length
          ? 'utf-8'
          : 'windows-1251'
        : (first ?? 'windows-1251');
  const offending = encoding === 'utf-8' ? cp1251Rows : utf8Rows;
  const firstRow = records[offending[0]!]!;
  const cell = firstRow.findIndex((text, c) =>
    encoding === 'utf-8'
      ? NON_ASCII.test(text) && !hidden.get(offending[0]!)?.has(c)
      : hidden.get(offending[0]!)?.has(c),
  );
  return {
    kind: 'mixed',
    encoding,
    offending,
    cell,
    records: records.map((cells, r) => {
      const row = hidden.get(r);
      return row ? cells.map((text, c) => row.get(c) ?? text) : cells;
    }),
  };
}

// Russian letters in UTF-8 are D0 81 (Ё), D0 90–BF (А–п), D1 80–8F (р–я), D1 91 (ё). Read as
// Windows-1251, D0 is "Р" and D1 is "С"; read as Windows-1252 or Latin-1, "Ð" and "Ñ".
const D0_TAIL = [0x81, ...range(0x90, 0xbf)];
const D1_TAIL = [...range(0x80, 0x8f), 0x91];
const PAIR_1251 = `(?:\u0420${classOf([...CP1251], D0_TAIL, ['\u0098'])}|\u0421${classOf([...CP1251], D1_TAIL)})`;
const PAIR_1252 = `(?:\u00d0${classOf(
  CP1252,
  D0_TAIL,
  D0_TAIL.map((b) => String.fromCharCode(b)),
)}|\u00d1${classOf(
  CP1252,
  D1_TAIL,
  D1_TAIL.map((b) => String.fromCharCode(b)),
)})`;
const MOJIBAKE = new RegExp(`${PAIR_1251}{2}|${PAIR_1252}{2}`);
/** Every pair starts with one of these; most text has none, and one test of this is cheap. */
const MOJIBAKE_LEAD = /[\u0420\u0421\u00d0\u00d1]/;

/**
 * Text that is UTF-8 Russian already mis-read as Windows-1251 ("РЎРјРёСЂРЅРѕРІ" for "Смирнов") or as
 * Windows-1252/Latin-1 ("Ð¡Ð¼Ð¸Ñ€Ð½Ð¾Ð²") somewhere before payrun got it: two Russian letters in a row
 * in that form. One such pair can occur in genuine text ("ТОР»"); two in a row do not.
 */
export function looksLikeMojibake(text: string): boolean {
  return MOJIBAKE_LEAD.test(text) && MOJIBAKE.test(text);
}
