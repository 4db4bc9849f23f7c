/**
 * Words issue 39 moved into the catalogue from the surfaces that said them in English or untruthfully:
 * the check page's verdict, the payout timeline, the bank's own words, refusals, the watcher's errors
 * file. Grouped by surface; kept apart from the older groups so other catalogue edits merge cleanly.
 */
import { entry, money, plural, pluralEn } from './lang';

export const WORDS_MESSAGES = {
  // ─── The check page (src/console/views.ts): what the file's check found ───────────────────────────
  'check.rejected': entry<{ invalid: number; fileErrors: number; valid: number }>({
    ru: (p) =>
      `Файл отклонён: ${[p.fileErrors ? `ошибок в файле: ${p.fileErrors}` : '', p.invalid ? `строк с ошибками: ${p.invalid}` : ''].filter(Boolean).join(', ')}. Ничего не будет выплачено, пока ошибки не исправлены (строк без ошибок: ${p.valid}).`,
    en: (p) =>
      `The file is rejected: ${[p.fileErrors ? `${pluralEn(p.fileErrors, 'file error', 'file errors')}` : '', p.invalid ? `${pluralEn(p.invalid, 'invalid row', 'invalid rows')}` : ''].filter(Boolean).join(', ')}. Nothing is paid until the errors are fixed (${pluralEn(p.valid, 'row', 'rows')} without errors).`,
  }),
  'check.accepted': entry<{ valid: number; kopecks: number; invalid: number }>({
    ru: (p) =>
      `К выплате: ${plural(p.valid, ['строка', 'строки', 'строк'])} на сумму ${money(p.kopecks)}.` +
      (p.invalid ? ` Строк с ошибками: ${p.invalid} (они не будут выплачены).` : ''),
    en: (p) =>
      `To pay: ${pluralEn(p.valid, 'row', 'rows')} totalling ${money(p.kopecks)}.` +
      (p.invalid ? ` Invalid rows: ${p.invalid} (they are not paid).` : ''),
  }),
};
