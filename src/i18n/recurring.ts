/**
 * Recurring payruns (`payrun schedule …`, issue 42): the preparer's template, the calendar, and why a
 * period was not submitted.
 */
import { entry, money, plural, pluralEn } from './lang';

const ROWS_RU: [string, string, string] = ['строка', 'строки', 'строк'];

export const RECURRING_MESSAGES = {
  'recurring.bad_name': entry({
    ru: () => 'не имя расписания; 1–40 символов: строчные латинские буквы, цифры и дефис',
    en: () => 'not a schedule name; 1–40 of lowercase Latin letters, digits and hyphens',
  }),
  'recurring.bad_days': entry({
    ru: () => 'не дни месяца; числа от 1 до 28 через запятую, например 5,20 (29–31 есть не в каждом месяце)',
    en: () =>
      'not days of the month; numbers 1–28 separated by commas, e.g. 5,20 (29–31 are not in every month)',
  }),
  'recurring.bad_at': entry({
    ru: () => 'не время; укажите ЧЧ:ММ по Москве, например 09:00',
    en: () => 'not a time; give HH:MM Moscow time, e.g. 09:00',
  }),
  'recurring.template_too_big': entry<{ max: number }>({
    ru: (p) =>
      `шаблон больше ${p.max} байт; регулярная выплата — список отдела, а не реестр на миллион строк`,
    en: (p) =>
      `the template is over ${p.max} bytes; a recurring payrun is a department’s list, not a million-row register`,
  }),
  'recurring.template_pay_on': entry({
    ru: () => 'в шаблоне регулярной выплаты дату выплаты не ставят: каждый период платит, когда его утвердят',
    en: () => 'a recurring template gives no pay-on date: each period pays once it is approved',
  }),
  'recurring.template_reference_long': entry<{ max: number }>({
    ru: (p) => `номер длиннее ${p.max} символов: к нему добавляется дата периода (.ГГГГММДД)`,
    en: (p) => `reference longer than ${p.max} characters: the period’s date (.YYYYMMDD) is appended to it`,
  }),
  'recurring.template_refused': entry<{ file: string; errors: number }>({
    ru: (p) => `шаблон ${p.file} не принят, ошибок: ${p.errors}; расписание не создано`,
    en: (p) => `template ${p.file} refused with ${p.errors} errors; no schedule was made`,
  }),
  'recurring.created': entry<{
    name: string;
    rows: number;
    kopecks: number;
    calendar: string;
    next?: string;
  }>({
    ru: (p) =>
      `расписание ${p.name}: ${plural(p.rows, ROWS_RU)} на ${money(p.kopecks)} каждый период (${p.calendar}); ` +
      `следующий: ${p.next ?? '—'}; каждый период ждёт утверждения`,
    en: (p) =>
      `schedule ${p.name}: ${pluralEn(p.rows, 'row', 'rows')} for ${money(p.kopecks)} each period (${p.calendar}); ` +
      `next: ${p.next ?? '—'}; each period waits for approval`,
  }),
  'recurring.calendar': entry<{ days: string; at: string }>({
    ru: (p) => `${p.days} числа в ${p.at} МСК`,
    en: (p) => `days ${p.days} at ${p.at} MSK`,
  }),
  'recurring.exists': entry<{ name: string }>({
    ru: (p) =>
      `расписание ${p.name} уже есть; удалите его (payrun schedule delete ${p.name}) или выберите другое имя`,
    en: (p) =>
      `schedule ${p.name} exists already; delete it (payrun schedule delete ${p.name}) or choose another name`,
  }),
  'recurring.not_found': entry<{ name: string }>({
    ru: (p) => `расписания ${p.name} нет`,
    en: (p) => `there is no schedule ${p.name}`,
  }),
  'recurring.none': entry({
    ru: () => 'расписаний нет',
    en: () => 'no schedules',
  }),
  'recurring.list_line': entry<{
    name: string;
    calendar: string;
    paused: boolean;
    next?: string;
    preparer: string;
    periods: number;
  }>({
    ru: (p) =>
      `${p.name}: ${p.calendar}; ${p.paused ? 'приостановлено' : `следующий период ${p.next ?? '—'}`}; ` +
      `подготовил ${p.preparer}; запущено периодов: ${p.periods}`,
    en: (p) =>
      `${p.name}: ${p.calendar}; ${p.paused ? 'paused' : `next period ${p.next ?? '—'}`}; ` +
      `prepared by ${p.preparer}; periods started: ${p.periods}`,
  }),
  'recurring.paused': entry<{ name: string }>({
    ru: (p) => `расписание ${p.name} приостановлено; новые периоды не запускаются`,
    en: (p) => `schedule ${p.name} paused; no new period starts`,
  }),
  'recurring.resumed': entry<{ name: string; next?: string }>({
    ru: (p) => `расписание ${p.name} снова работает; следующий период ${p.next ?? '—'}`,
    en: (p) => `schedule ${p.name} runs again; next period ${p.next ?? '—'}`,
  }),
  'recurring.deleted': entry<{ name: string }>({
    ru: (p) => `расписание ${p.name} удалено; уже отправленные пакеты живут дальше`,
    en: (p) => `schedule ${p.name} deleted; batches it already submitted go on`,
  }),
  'recurring.refused.hash': entry({
    ru: () => 'шаблон не совпадает с тем, что подписал подготовивший; период не отправлен',
    en: () => 'the template is not the one its preparer signed; the period was not submitted',
  }),
  'recurring.refused.name': entry<{ name: string; signed: string }>({
    ru: (p) => `подпись шаблона сделана для расписания ${p.signed}, а не ${p.name}; период не отправлен`,
    en: (p) =>
      `the template was signed for schedule ${p.signed}, not ${p.name}; the period was not submitted`,
  }),
  'recurring.refused.statement': entry<{ person: string; reason: string }>({
    ru: (p) => `подпись шаблона (${p.person}) не действует: ${p.reason}; период не отправлен`,
    en: (p) =>
      `the template’s signature (${p.person}) does not count: ${p.reason}; the period was not submitted`,
  }),
  'recurring.refused.role': entry<{ person: string }>({
    ru: (p) => `${p.person} не подготавливает выплаты (нужна роль preparer или admin)`,
    en: (p) => `${p.person} does not prepare payouts (needs preparer or admin)`,
  }),
  'recurring.refused.totals': entry<{ rows: number; kopecks: number }>({
    ru: (p) =>
      `шаблон читается иначе, чем при подписи (${plural(p.rows, ROWS_RU)}, ${money(p.kopecks)}); период не отправлен`,
    en: (p) =>
      `the template reads differently than when signed (${pluralEn(p.rows, 'row', 'rows')}, ${money(p.kopecks)}); the period was not submitted`,
  }),
  'recurring.not_made': entry<{ reason: string }>({
    ru: (p) => `${p.reason}; расписание не создано`,
    en: (p) => `${p.reason}; no schedule was made`,
  }),
  'recurring.not_submitted': entry<{ reason: string }>({
    ru: (p) => `${p.reason}; период не отправлен`,
    en: (p) => `${p.reason}; the period was not submitted`,
  }),
  'recurring.submit_worker': entry<{ queue: string }>({
    ru: (p) => `отправляю периоды регулярных выплат из очереди ${p.queue}`,
    en: (p) => `submitting recurring payruns’ periods from queue ${p.queue}`,
  }),
};
