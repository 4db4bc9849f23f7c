/**
 * commander's own usage errors in the language set: it writes them in English ("error: required option
 * '--date <date>' not specified"), so a Russian accountant's misspelt command answered in English. Each
 * form commander 14 writes is read back and said again; a form not known here is passed through as is.
 * Our own argument parsers' words (after "is invalid.") are already in the language set and kept; the
 * value given is not repeated (a mistyped tax number or card number is personal data all the same).
 */
import { currentLang, type Lang } from './lang';

/** The parts of a matched form, options without their placeholders. */
type Said = Record<Lang, (m: string[]) => string>;

const FORMS: [RegExp, Said][] = [
  [
    /^error: option '([^']+)' argument '([^']*)' is invalid\. ?(.*)$/s,
    {
      ru: (m) => `ошибка: параметр ${m[1]}: ${m[3] || 'неверное значение'}`,
      en: (m) => `error: option ${m[1]}: ${m[3] || 'invalid value'}`,
    },
  ],
  [
    /^error: command-argument value '([^']*)' is invalid for argument '([^']+)'\. ?(.*)$/s,
    {
      ru: (m) => `ошибка: аргумент ${m[2]}: ${m[3] || 'неверное значение'}`,
      en: (m) => `error: argument ${m[2]}: ${m[3] || 'invalid value'}`,
    },
  ],
  [
    /^error: argument '([^']+)': (.*)$/s,
    { ru: (m) => `ошибка: аргумент ${m[1]}: ${m[2]}`, en: (m) => `error: argument ${m[1]}: ${m[2]}` },
  ],
  [
    /^error: required option '([^']+)' not specified$/,
    {
      ru: (m) => `ошибка: не указан обязательный параметр ${m[1]}`,
      en: (m) => `error: required option ${m[1]} not given`,
    },
  ],
  [
    /^error: option '([^']+)' argument missing$/,
    {
      ru: (m) => `ошибка: у параметра ${m[1]} нет значения`,
      en: (m) => `error: option ${m[1]} has no value`,
    },
  ],
  [
    /^error: missing required argument '([^']+)'$/,
    {
      ru: (m) => `ошибка: не указан обязательный аргумент ${m[1]}`,
      en: (m) => `error: missing argument ${m[1]}`,
    },
  ],
  [
    /^error: unknown option '([^']+)'(?:\n?\(Did you mean (\S+)\?\))?$/,
    {
      ru: (m) => `ошибка: неизвестный параметр ${m[1]}${m[2] ? ` (возможно, имелся в виду ${m[2]})` : ''}`,
      en: (m) => `error: unknown option ${m[1]}${m[2] ? ` (did you mean ${m[2]}?)` : ''}`,
    },
  ],
  [
    /^error: unknown command '([^']+)'(?:\n?\(Did you mean (\S+)\?\))?$/,
    {
      ru: (m) => `ошибка: неизвестная команда ${m[1]}${m[2] ? ` (возможно, имелась в виду ${m[2]})` : ''}`,
      en: (m) => `error: unknown command ${m[1]}${m[2] ? ` (did you mean ${m[2]}?)` : ''}`,
    },
  ],
  [
    /^error: too many arguments(?: for '([^']+)')?\. Expected (\d+) arguments? but got (\d+)\.$/,
    {
      ru: (m) => `ошибка: лишние аргументы${m[1] ? ` у команды ${m[1]}` : ''}: нужно ${m[2]}, дано ${m[3]}`,
      en: (m) => `error: too many arguments${m[1] ? ` for ${m[1]}` : ''}: ${m[2]} expected, ${m[3]} given`,
    },
  ],
];

/** An option as commander names it, "--date <date>", without its English placeholder: "--date". */
const flagOnly = (flags: string) => flags.replace(/\s+[<[][^>\]]*[>\]]/g, '');

/** A usage error as commander wrote it (one message, its trailing newline kept), in `lang`. */
export function usageErrorText(text: string, lang: Lang = currentLang()): string {
  const body = text.replace(/\n$/, '');
  for (const [form, said] of FORMS) {
    const m = form.exec(body);
    if (m) return `${said[lang]([...m].map((part) => (part?.startsWith('-') ? flagOnly(part) : part)))}\n`;
  }
  return text;
}

/** What follows a usage error instead of the whole (English) help: where the help is. */
export function usageHint(lang: Lang = currentLang()): string {
  return lang === 'ru'
    ? '(описание команды и её параметров: payrun <команда> --help)'
    : '(the command and its options: payrun <command> --help)';
}
