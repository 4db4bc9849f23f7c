/**
 * Text an output encoding can hold. Windows-1251 (reports of Windows-1251 files, the review download,
 * the reconciliation CSV, the 1C file) has no `₽`, `≠` or `−`: iconv writes each as `?`, which reads
 * as a question where there was none. How each is spelled out instead is decided here, once, in the
 * catalogue's two languages; writers call writableIn and never replace signs themselves.
 */
import iconv from 'iconv-lite';
import { currentLang, entry, type Lang } from './lang';

/** The encodings payrun writes (the same names as FileEncoding). */
export type OutputEncoding = 'utf-8' | 'windows-1251' | 'utf-16le' | 'utf-16be';

/** How a sign an encoding lacks is written out: catalogue entries, so the language test sees them. */
export const SIGN_MESSAGES = {
  'sign.rouble': entry({ ru: () => 'руб.', en: () => 'RUB' }),
  'sign.not_equal': entry({ ru: () => 'не равно', en: () => 'is not' }),
  'sign.minus': entry({ ru: () => '-', en: () => '-' }),
};

const SIGNS: Record<string, keyof typeof SIGN_MESSAGES> = {
  '\u20bd': 'sign.rouble',
  '\u2260': 'sign.not_equal',
  '\u2212': 'sign.minus',
};

/** Every character Windows-1251 holds (its one unassigned byte, 0x98, decodes to U+FFFD: left out). */
const CP1251 = new Set(
  iconv.decode(Buffer.from(Array.from({ length: 256 }, (_, i) => i)), 'win1251').replace('\ufffd', ''),
);
/** One character it lacks (a pair of surrogates counts as one): one regex pass finds them all. */
const LACKING = new RegExp(
  `[^${[...CP1251].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`,
  'gu',
);

/**
 * A character Windows-1251 lacks, written with the letters it has: the catalogue's word, or the letter
 * without its accent (é → e); unchanged (iconv's `?`) when neither exists (emoji, CJK).
 */
function spelledOut(ch: string, lang: Lang): string {
  const code = SIGNS[ch];
  if (code) return SIGN_MESSAGES[code][lang]({});
  const bare = ch.normalize('NFKD').replace(/\p{M}/gu, '');
  return bare !== '' && [...bare].every((c) => CP1251.has(c)) ? bare : ch;
}

/** `text` with every character `encoding` cannot hold spelled out in what it can (see above). */
export function writableIn(text: string, encoding: OutputEncoding, lang: Lang = currentLang()): string {
  if (encoding !== 'windows-1251') return text;
  return text.replace(LACKING, (ch) => spelledOut(ch, lang));
}
