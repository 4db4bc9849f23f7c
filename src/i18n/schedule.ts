/**
 * Scheduled rows (pay_on, issue 42): what the dry run says per date, and why a row that slept ended unpaid.
 */
import { entry, money, plural, pluralEn } from './lang';

const ROWS_RU: [string, string, string] = ['строка', 'строки', 'строк'];
/** YYYY-MM-DD as people write it in Russia, ДД.ММ.ГГГГ. */
const dotted = (iso: string) => iso.split('-').reverse().join('.');

export const SCHEDULE_MESSAGES = {
  'schedule.heading': entry({
    ru: () => 'по датам выплаты (депозит сейчас против нарастающего итога):',
    en: () => 'by pay-on date (today’s deposit against the running total):',
  }),
  'schedule.date_line': entry<{
    payOn?: string;
    rows: number;
    kopecks: number;
    cumulative: number;
    holds: boolean;
  }>({
    ru: (p) =>
      `  ${p.payOn ? dotted(p.payOn) : 'сразу'}: ${plural(p.rows, ROWS_RU)}, ${money(p.kopecks)}; с предыдущими ${money(p.cumulative)}` +
      (p.holds ? ' — депозита хватает' : ' — депозита не хватает: пополните до этой даты'),
    en: (p) =>
      `  ${p.payOn ?? 'now'}: ${pluralEn(p.rows, 'row', 'rows')}, ${money(p.kopecks)}; with earlier dates ${money(p.cumulative)}` +
      (p.holds ? ' — the deposit holds it' : ' — the deposit does not hold it: top it up before this date'),
  }),
  'schedule.woke_short': entry<{ balance: number; amount: number }>({
    ru: (p) =>
      `при пробуждении на депозите ${money(p.balance)}, меньше суммы строки ${money(p.amount)}; не выплачено`,
    en: (p) =>
      `at wake the deposit held ${money(p.balance)}, less than the row’s ${money(p.amount)}; not paid`,
  }),
  'schedule.woke_stop_list': entry({
    ru: () => 'ИНН внесён в стоп-лист, пока строка ждала своей даты; не выплачено',
    en: () => 'the tax number was put on the stop-list while the row waited for its date; not paid',
  }),
};
