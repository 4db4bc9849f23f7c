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
  /** The value is not repeated: a usage error never echoes what was typed (src/i18n/usage.ts). */
  'schedule.cancel_bad_date': entry({
    ru: () => 'не дата; укажите ДД.ММ.ГГГГ или ГГГГ-ММ-ДД',
    en: () => 'not a date; give DD.MM.YYYY or YYYY-MM-DD',
  }),
  'schedule.cancel_none': entry<{ batchId: string; payOn: string }>({
    ru: (p) => `в пакете ${p.batchId} нет строк с датой выплаты ${dotted(p.payOn)}`,
    en: (p) => `batch ${p.batchId} has no rows to pay on ${p.payOn}`,
  }),
  'schedule.cancel_done': entry<{ payOn: string; rows: number; cancelled: number }>({
    ru: (p) =>
      `${dotted(p.payOn)}: отменено ${plural(p.cancelled, ROWS_RU)} из ${p.rows}; их резерв под лимитом дохода снят`,
    en: (p) =>
      `${p.payOn}: ${pluralEn(p.cancelled, 'row', 'rows')} of ${p.rows} cancelled; their reservations under the income cap are released`,
  }),
  'schedule.cancel_row': entry<{ reference: string }>({
    ru: (p) => `  ${p.reference}: отменена`,
    en: (p) => `  ${p.reference}: cancelled`,
  }),
  'schedule.cancel_not_asleep': entry<{ reference: string; state: string }>({
    ru: (p) => `  ${p.reference}: не отменена, уже не ждёт даты (${p.state})`,
    en: (p) => `  ${p.reference}: not cancelled, no longer waiting for its date (${p.state})`,
  }),
  'schedule.cancel_not_started': entry({
    ru: () => 'выплата ещё не запущена',
    en: () => 'its payout has not started',
  }),
  'schedule.cancel_refused': entry<{ reference: string; reason: string }>({
    ru: (p) => `  ${p.reference}: не отменена: ${p.reason}`,
    en: (p) => `  ${p.reference}: not cancelled: ${p.reason}`,
  }),
};
