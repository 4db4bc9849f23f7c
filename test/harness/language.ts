/**
 * Which words of a text people read are in the other language (issue 39's language test). Honest and
 * simple: in a Russian text a Latin word of three letters or more is English; in an English text a word
 * with a Cyrillic letter is Russian. Set apart before judging, and only these: the bank's own words where
 * shown quoted and labelled («Слова банка: "…"», `The bank's words: "…"`), identifiers (anything with a
 * digit, an underscore, a slash, an @, an = or a dot inside: batch ids, references, rule and error codes,
 * file names, addresses, settings as typed), flags (`--again`), `payrun` commands as typed, and the
 * allow-list's words (product names, standards, units, and what a test passes for its own data such as
 * people's names).
 */
export type Language = 'ru' | 'en';

export interface ForeignWord {
  word: string;
  /** The text around it, to find it. */
  near: string;
}

/** Product names and units a text in either language may carry. */
export const ALLOWED = [
  'payrun',
  'Temporal',
  'Excel',
  'CSV',
  'UTF',
  'Windows',
  'JSON',
  'TOTP',
  'HTTP',
  'HTTPS',
  'WebAuthn',
  'passkey',
  'passkeys',
  // Standards and a key, written so in Russian too (PIN-код, ISO 8601, Ctrl-C).
  'PIN',
  'ISO',
  'Ctrl',
  'МСК',
  'MSK',
  'ИНН',
];

/** The bank's own words, quoted after their label: not payrun's to translate. */
const BANK_WORDS = /(?:Слова банка|The bank's words|The bank’s words): "[^"]*"/g;
/**
 * `payrun batch submit ФАЙЛ --dry-run`, `bin/payrun …`: a command as typed (Latin words after `payrun`,
 * and the path it may be run by).
 */
const COMMAND = /(?:[\w./-]*\/)?\bpayrun(?:\s+(?:[a-z][a-z-]*|--[a-z-]+|[A-ZА-ЯЁ]{2,}|<[^>]+>))+/g;
/** A token that is an identifier, not a word: `KEEP=1` and `PAYRUN_PERSON=…` are settings as typed. */
const IDENTIFIER = /^(?=.*[\d_/@.:=]).+$|^--/;

const TOKEN = /[\p{L}\p{N}_\-./@:=]+/gu;
const LATIN_WORD = /[A-Za-z]{3,}/;
const CYRILLIC = /[\u0400-\u04FF]/;

/** The words of `text` that are of the other language than `lang`, apart from `allowed` ones. */
export function foreignWords(text: string, lang: Language, allowed: readonly string[] = []): ForeignWord[] {
  const allow = new Set([...ALLOWED, ...allowed].map((w) => w.toLowerCase()));
  const cleaned = text.replace(BANK_WORDS, ' ').replace(COMMAND, ' ');
  const found: ForeignWord[] = [];
  for (const m of cleaned.matchAll(TOKEN)) {
    // A flag (`--date:` as a usage error names it) is an identifier, whatever punctuation follows it.
    if (/^--[a-z]/.test(m[0])) continue;
    // A token's edges are punctuation, not part of it: "файл." is a word, "march.csv" an identifier.
    const token = m[0].replace(/^[-.:/]+|[-.:/]+$/g, '');
    if (!token || IDENTIFIER.test(token)) continue;
    for (const word of token.split('-')) {
      if (allow.has(word.toLowerCase())) continue;
      const foreign = lang === 'ru' ? LATIN_WORD.test(word) : CYRILLIC.test(word);
      if (foreign) {
        const at = m.index ?? 0;
        found.push({ word, near: cleaned.slice(Math.max(0, at - 40), at + token.length + 40) });
      }
    }
  }
  return found;
}

/** People's names and other data of a test, split into the words the classifier sees. */
export function wordsOf(...data: string[]): string[] {
  return data.flatMap((d) => d.split(/[\s,()«»"]+/).filter(Boolean));
}
