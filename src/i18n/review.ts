/**
 * The review an approver reads before deciding (the console's batch page, its download and the confirm
 * step): what will be paid, to whom, what stands out, and what changed since the last file of that name.
 */
import { entry, money, moscowTime, plural, pluralEn } from './lang';

const ROWS_RU = ['строка', 'строки', 'строк'] as const;
const PEOPLE_RU = ['получатель', 'получателя', 'получателей'] as const;

export type Decision = 'approve' | 'reject' | 'pause' | 'resume' | 'cancel';

const VERB: Record<Decision, { ru: string; en: string }> = {
  approve: { ru: 'утвердить', en: 'approve' },
  reject: { ru: 'отклонить', en: 'reject' },
  pause: { ru: 'приостановить', en: 'pause' },
  resume: { ru: 'возобновить', en: 'resume' },
  cancel: { ru: 'отменить', en: 'cancel' },
};

const COLUMN: Record<string, { ru: string; en: string }> = {
  row: { ru: 'Строка', en: 'Row' },
  reference: { ru: 'Референс', en: 'Reference' },
  name: { ru: 'Получатель', en: 'Recipient' },
  inn: { ru: 'ИНН', en: 'Tax number' },
  method: { ru: 'Способ', en: 'Method' },
  payee: { ru: 'Реквизиты', en: 'Paid to' },
  amount: { ru: 'Сумма', en: 'Amount' },
  selfEmployed: { ru: 'Самозанятый', en: 'Self-employed' },
  recipientTotal: { ru: 'Итого получателю', en: 'Recipient total' },
  flags: { ru: 'Отметки', en: 'Flags' },
  newRecipient: { ru: 'Новый получатель', en: 'New recipient' },
  limit: { ru: 'Лимит', en: 'Limit' },
  rows: { ru: 'Строк', en: 'Rows' },
  total: { ru: 'Сумма', en: 'Total' },
  before: { ru: 'Было', en: 'Before' },
  after: { ru: 'Стало', en: 'Now' },
  change: { ru: 'Разница', en: 'Change' },
  grandTotal: { ru: 'Итого', en: 'Total' },
};

const signed = (k: number) => (k > 0 ? `+${money(k)}` : k < 0 ? `−${money(-k)}` : money(0));

export const REVIEW_MESSAGES = {
  'review.heading': entry({ ru: () => 'Что будет выплачено', en: () => 'What will be paid' }),
  'review.summary': entry<{ rows: number; total: number; people: number; fresh: number; flagged: number }>({
    ru: (p) =>
      `${plural(p.rows, ROWS_RU)} на ${money(p.total)}, ${plural(p.people, PEOPLE_RU)}. ` +
      `Ни разу не получали выплат от payrun: ${p.fresh}. Строк сверх лимита: ${p.flagged}.`,
    en: (p) =>
      `${pluralEn(p.rows, 'row', 'rows')} totalling ${money(p.total)}, ${pluralEn(p.people, 'recipient', 'recipients')}. ` +
      `Never paid by payrun before: ${p.fresh}. Rows over a limit: ${p.flagged}.`,
  }),
  'review.limits': entry<{ state: 'pending' | 'done' | 'failed'; at: string }>({
    ru: (p) =>
      ({
        pending:
          'Лимиты сверяются с реестрами получателей; пока отмечено только то, что превышает лимит по самому файлу. Обновите страницу.',
        done: `Лимиты сверены с реестрами получателей ${moscowTime(p.at, 'ru')}.`,
        failed: 'Реестры получателей не ответили: отмечено только то, что превышает лимит по самому файлу.',
      })[p.state],
    en: (p) =>
      ({
        pending:
          "Limits are being checked against the recipients' ledgers; until then only rows the file alone takes over a limit are flagged. Reload the page.",
        done: `Limits checked against the recipients' ledgers at ${moscowTime(p.at, 'en')}.`,
        failed:
          "The recipients' ledgers did not answer: only rows the file alone takes over a limit are flagged.",
      })[p.state],
  }),
  'review.fresh.hint': entry({
    ru: () =>
      '«Новый получатель»: по ИНН никогда не выплачивалось ни в одном пакете этого хранилища (выплаты, начатые вручную, не учитываются).',
    en: () =>
      '"New recipient": nothing was ever paid to the tax number in any batch of this store (payouts started by hand are not counted).',
  }),
  'review.column': entry<{ column: string }>({
    ru: (p) => COLUMN[p.column]?.ru ?? p.column,
    en: (p) => COLUMN[p.column]?.en ?? p.column,
  }),
  'review.method': entry<{ method: string }>({
    ru: (p) => ({ card: 'карта', bank_account: 'счёт', fps: 'СБП' })[p.method] ?? p.method,
    en: (p) => ({ card: 'card', bank_account: 'account', fps: 'FPS' })[p.method] ?? p.method,
  }),
  'review.yes': entry<{ yes: boolean }>({
    ru: (p) => (p.yes ? 'да' : 'нет'),
    en: (p) => (p.yes ? 'yes' : 'no'),
  }),
  'review.flag.fresh': entry({ ru: () => 'новый получатель', en: () => 'new recipient' }),
  'review.order': entry<{ order?: 'file' | 'amount' }>({
    ru: (p) => (p.order === 'amount' ? 'сначала крупные' : p.order === 'file' ? 'как в файле' : 'Порядок'),
    en: (p) => (p.order === 'amount' ? 'largest first' : p.order === 'file' ? 'as in the file' : 'Order'),
  }),
  'review.only': entry<{ only?: 'all' | 'flagged' }>({
    ru: (p) => (p.only === 'flagged' ? 'только отмеченные' : p.only === 'all' ? 'все строки' : 'Строки'),
    en: (p) => (p.only === 'flagged' ? 'flagged only' : p.only === 'all' ? 'all rows' : 'Rows'),
  }),
  'review.show': entry({ ru: () => 'Показать', en: () => 'Show' }),
  'review.rows.caption': entry<{ from: number; to: number; of: number }>({
    ru: (p) => `Строки ${p.from}–${p.to} из ${p.of}`,
    en: (p) => `Rows ${p.from}–${p.to} of ${p.of}`,
  }),
  'review.none': entry({ ru: () => 'Таких строк нет.', en: () => 'No such rows.' }),
  'review.page': entry<{ page: number; pages: number }>({
    ru: (p) => `Страница ${p.page} из ${p.pages}`,
    en: (p) => `Page ${p.page} of ${p.pages}`,
  }),
  'review.prev': entry({ ru: () => 'Предыдущая', en: () => 'Previous' }),
  'review.next': entry({ ru: () => 'Следующая', en: () => 'Next' }),
  'review.paging': entry<{ what: 'rows' | 'people' }>({
    ru: (p) => (p.what === 'rows' ? 'Страницы строк' : 'Страницы получателей'),
    en: (p) => (p.what === 'rows' ? 'Pages of rows' : 'Pages of recipients'),
  }),
  'review.people.heading': entry({ ru: () => 'Итого по получателям', en: () => 'Totals by recipient' }),
  'review.people.caption': entry<{ from: number; to: number; of: number }>({
    ru: (p) => `Получатели ${p.from}–${p.to} из ${p.of}, по убыванию суммы`,
    en: (p) => `Recipients ${p.from}–${p.to} of ${p.of}, largest total first`,
  }),
  'review.download': entry<{ encoding: 'windows-1251' | 'utf-8' }>({
    ru: (p) =>
      `Весь список строк (CSV, ${p.encoding === 'utf-8' ? 'UTF-8' : 'Windows-1251 для Excel'}; номера скрыты)`,
    en: (p) =>
      `The whole list of rows (CSV, ${p.encoding === 'utf-8' ? 'UTF-8' : 'Windows-1251 for Excel'}; numbers masked)`,
  }),
  'review.diff.heading': entry({
    ru: () => 'Отличия от прошлого пакета с тем же именем файла',
    en: () => 'Changes since the last batch of the same file name',
  }),
  'review.diff.none': entry<{ file: string }>({
    ru: (p) => `Раньше пакетов с файлом «${p.file}» не было.`,
    en: (p) => `No earlier batch had the file name "${p.file}".`,
  }),
  'review.diff.summary': entry<{
    id: string;
    at: string;
    rowsBefore: number;
    rows: number;
    totalBefore: number;
    total: number;
    added: number;
    removed: number;
    changed: number;
  }>({
    ru: (p) =>
      `Прошлый пакет ${p.id} от ${moscowTime(p.at, 'ru')}: строк ${p.rowsBefore} → ${p.rows}, сумма ${money(p.totalBefore)} → ${money(p.total)} (${signed(p.total - p.totalBefore)}). ` +
      `Новых получателей: ${p.added}, выбыло: ${p.removed}, сумма изменилась у ${p.changed}.`,
    en: (p) =>
      `The last batch ${p.id} of ${moscowTime(p.at, 'en')}: rows ${p.rowsBefore} → ${p.rows}, total ${money(p.totalBefore)} → ${money(p.total)} (${signed(p.total - p.totalBefore)}). ` +
      `Recipients added: ${p.added}, gone: ${p.removed}, with a changed total: ${p.changed}.`,
  }),
  'review.diff.caption': entry<{ shown: number; of: number }>({
    ru: (p) =>
      `Изменения по получателям, крупнейшие первыми${p.of > p.shown ? ` (${p.shown} из ${p.of})` : ''}`,
    en: (p) => `Changes by recipient, largest first${p.of > p.shown ? ` (${p.shown} of ${p.of})` : ''}`,
  }),
  'review.change': entry<{ kopecks: number }>({ ru: (p) => signed(p.kopecks), en: (p) => signed(p.kopecks) }),
  'confirm.heading': entry<{ decision: Decision }>({
    ru: (p) => `Подтвердите: ${VERB[p.decision].ru} пакет`,
    en: (p) => `Confirm: ${VERB[p.decision].en} the batch`,
  }),
  'confirm.question': entry<{ decision: Decision; id: string; file: string; rows: number; total: number }>({
    ru: (p) =>
      `${VERB[p.decision].ru[0]!.toUpperCase()}${VERB[p.decision].ru.slice(1)} пакет ${p.id} (файл «${p.file}»): ${plural(p.rows, ROWS_RU)} на сумму ${money(p.total)}?`,
    en: (p) =>
      `${VERB[p.decision].en[0]!.toUpperCase()}${VERB[p.decision].en.slice(1)} batch ${p.id} (file "${p.file}"): ${pluralEn(p.rows, 'row', 'rows')} totalling ${money(p.total)}?`,
  }),
  'confirm.yes': entry<{ decision: Decision; rows: number; total: number }>({
    ru: (p) => `Да, ${VERB[p.decision].ru}: ${plural(p.rows, ROWS_RU)}, ${money(p.total)}`,
    en: (p) => `Yes, ${VERB[p.decision].en}: ${pluralEn(p.rows, 'row', 'rows')}, ${money(p.total)}`,
  }),
  'confirm.back': entry({ ru: () => 'Нет, вернуться к пакету', en: () => 'No, back to the batch' }),
  'confirm.reason': entry<{ reason: string }>({
    ru: (p) => `Причина: ${p.reason}`,
    en: (p) => `Reason: ${p.reason}`,
  }),
  'confirm.changed': entry({
    ru: () => 'Цифры пакета не совпадают с теми, что вы подтверждали: ничего не сделано. Проверьте их снова.',
    en: () => 'The batch’s figures are not the ones you confirmed: nothing was done. Check them again.',
  }),
};
