/**
 * The language of what payrun tells people (report reasons, summaries, `batch status`, `payout
 * status`, validation messages): Russian unless PAYRUN_LANG=en. Codes (rules, states, error codes)
 * never change with it: they are for machines.
 */
import { LANGS, loadLang, type Env, type Lang } from '../config';
import { formatRubles } from '../money';

export type { Lang };

/** One catalogue entry: the message in each language, from its parameters. */
export type Texts<P> = { ru: (p: P) => string; en: (p: P) => string };
export const entry = <P = Record<string, never>>(texts: Texts<P>): Texts<P> => texts;
export { LANGS };

/** PAYRUN_LANG: ru (default) or en; anything else is a configuration error naming the variable. */
export function currentLang(env?: Env): Lang {
  return loadLang(env);
}

/** Money as Russian accounting writes it, in either language: `1 234,56 ₽`. */
export function money(kopecks: number): string {
  return `${formatRubles(kopecks)} ₽`;
}

const RUSSIAN_PLURAL = new Intl.PluralRules('ru-RU');

/** A count with its Russian noun form (Intl's plural rules): plural(5, ['строка', 'строки', 'строк']) → "5 строк". */
export function plural(n: number, [one, few, many]: readonly [string, string, string]): string {
  const category = RUSSIAN_PLURAL.select(n);
  return `${n} ${category === 'one' ? one : category === 'few' ? few : many}`;
}

/** English: "1 row", "3 rows". */
export function pluralEn(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const MOSCOW = new Intl.DateTimeFormat('ru-RU', {
  timeZone: 'Europe/Moscow',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A moment in Moscow time, as accounting reads dates: `24.11.2026 12:45 МСК` (MSK in English). */
export function moscowTime(iso: string, lang: Lang = currentLang()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${MOSCOW.format(t).replace(',', '')} ${lang === 'ru' ? 'МСК' : 'MSK'}`;
}

/** "rows 2, 5, 9 and 12 more" / "строки 2, 5, 9 и ещё 12": at most `shown` numbers, the rest counted. */
export function listRows(rows: readonly number[], lang: Lang, shown = 10, total = rows.length): string {
  const listed = rows.slice(0, shown).join(', ');
  const more = total - Math.min(shown, rows.length);
  if (lang === 'ru')
    return `${total === 1 ? 'строка' : 'строки'} ${listed}${more > 0 ? ` и ещё ${more}` : ''}`;
  return `${total === 1 ? 'row' : 'rows'} ${listed}${more > 0 ? ` and ${more} more` : ''}`;
}
