import type { UnprovenWhy } from '../../workflows/recipient-ledger/contract';
import { entry, money } from './lang';

/** Why a reservation was refused as not from a payout (src/recipient/proof.ts), as people read it. */
const UNPROVEN_RU: Record<UnprovenWhy, string> = {
  no_run: 'не назван запуск выплаты',
  not_its_workflow: 'назван процесс другой выплаты',
  no_such_run: 'такого запуска выплаты нет',
  run_closed: 'запуск выплаты уже завершён',
  not_a_payout: 'это не выплата payrun',
  unreadable_input: 'входные данные запуска не читаются',
  other_reference: 'запуск платит по другому референсу',
  other_amount: 'запуск платит другую сумму',
  other_recipient: 'запуск платит другому получателю',
  other_kind: 'запуск платит строку другого вида (самозанятый или нет)',
};
const UNPROVEN_EN: Record<UnprovenWhy, string> = {
  no_run: 'it names no payout run',
  not_its_workflow: "it names another reference's payout",
  no_such_run: 'no such payout run',
  run_closed: 'the payout run has ended',
  not_a_payout: 'not a payrun payout',
  unreadable_input: "the run's input cannot be read",
  other_reference: 'the run pays another reference',
  other_amount: 'the run pays another amount',
  other_recipient: 'the run pays another recipient',
  other_kind: 'the run pays a row of the other kind (self-employed or not)',
};

/** `payrun recipient show`: one person's year as payrun recorded it (the tax number always masked). */
export const RECIPIENT_MESSAGES = {
  'recipient.header': entry<{ who: string }>({
    ru: (p) => `Получатель ${p.who}`,
    en: (p) => `Recipient ${p.who}`,
  }),
  'recipient.none': entry<{ who: string }>({
    ru: (p) => `${p.who}: payrun ещё ничего не выплачивал и не резервировал этому получателю`,
    en: (p) => `${p.who}: payrun has paid or reserved nothing for this recipient yet`,
  }),
  'recipient.year': entry<{ year: number; paid: number; reserved: number }>({
    ru: (p) => `${p.year}: выплачено ${money(p.paid)}, в резерве ${money(p.reserved)}`,
    en: (p) => `${p.year}: paid ${money(p.paid)}, reserved ${money(p.reserved)}`,
  }),
  'recipient.headroom': entry<{ cap: number; known: number; left: number }>({
    ru: (p) =>
      `  лимит дохода самозанятого ${money(p.cap)}${p.known ? `, доход из других источников ${money(p.known)}` : ''}: осталось ${money(p.left)}`,
    en: (p) =>
      `  self-employed income cap ${money(p.cap)}${p.known ? `, income from elsewhere ${money(p.known)}` : ''}: ${money(p.left)} left`,
  }),
  'recipient.headroom.month': entry<{ limit: number; left: number }>({
    ru: (p) => `  месячный лимит ${money(p.limit)}: осталось ${money(p.left)}`,
    en: (p) => `  monthly limit ${money(p.limit)}: ${money(p.left)} left`,
  }),
  'recipient.headroom.perPayout': entry<{ limit: number }>({
    ru: (p) => `  лимит одной выплаты ${money(p.limit)}`,
    en: (p) => `  per-payout limit ${money(p.limit)}`,
  }),
  'recipient.payout': entry<{ when: string; reference: string; amount: number; state: string }>({
    ru: (p) =>
      `  ${p.when} ${p.reference} ${money(p.amount)} ${{ paid: 'выплачено', reserved: 'в резерве', returned: 'возвращено' }[p.state] ?? p.state}`,
    en: (p) => `  ${p.when} ${p.reference} ${money(p.amount)} ${p.state}`,
  }),
  'recipient.link.sent': entry<{ who: string; url: string; until: string }>({
    ru: (p) =>
      `${p.who}: банк отправил запрос на подключение payrun как партнёра в «Мой налог». Передайте получателю ссылку: ${p.url}${p.until ? ` (действует до ${p.until})` : ''}. Когда он подключит партнёра, выплатите отказанные строки: payrun batch retry-failed <пакет>`,
    en: (p) =>
      `${p.who}: the bank sent a request to link payrun's partner in the tax service. Pass the person this link: ${p.url}${p.until ? ` (valid until ${p.until})` : ''}. Once they have linked it, pay the refused rows: payrun batch retry-failed <batch>`,
  }),
  'recipient.link.open': entry<{ who: string; url: string; when: string; until: string }>({
    ru: (p) =>
      `${p.who}: запрос на подключение уже отправлен ${p.when} и ещё действует${p.until ? ` (до ${p.until})` : ''}; новый не отправлялся. Ссылка для получателя: ${p.url}. Новый запрос: --again`,
    en: (p) =>
      `${p.who}: a link request was already sent ${p.when} and is still open${p.until ? ` (until ${p.until})` : ''}; no new one was sent. The person's link: ${p.url}. A new request: --again`,
  }),
  'recipient.link.failed': entry<{ reason: string }>({
    ru: (p) => `запрос на подключение не выполнен: ${p.reason}`,
    en: (p) => `the link request failed: ${p.reason}`,
  }),
  'recipient.link.state': entry<{ when: string; by: string; until: string; state: string }>({
    ru: (p) =>
      `  запрос на подключение партнёра: отправлен ${p.when} (${p.by})${p.until ? `, действует до ${p.until}` : ''}: ${{ open: 'ждёт получателя', expired: 'истёк', linked: 'партнёр подключён', declined: 'получатель отказался' }[p.state] ?? p.state}` +
      (p.state === 'declined' || p.state === 'expired' ? '; спросить снова: payrun recipient link ИНН' : ''),
    en: (p) =>
      `  link request: sent ${p.when} (${p.by})${p.until ? `, valid until ${p.until}` : ''}: ${{ open: 'waiting for the person', expired: 'expired', linked: 'partner linked', declined: 'declined by the person' }[p.state] ?? p.state}` +
      (p.state === 'declined' || p.state === 'expired' ? '; to ask again: payrun recipient link INN' : ''),
  }),
  /** A plain `link` after the last request was declined or lapsed: a new one was asked for. */
  'recipient.link.ended': entry<{ who: string; state: 'declined' | 'expired'; when: string }>({
    ru: (p) =>
      `${p.who}: ${p.state === 'declined' ? 'получатель отказался от прошлого запроса на подключение' : 'прошлый запрос на подключение истёк'}; отправлен новый (${p.when}).`,
    en: (p) =>
      `${p.who}: the last link request was ${p.state === 'declined' ? 'declined by the person' : 'expired'}; a new one was sent (${p.when}).`,
  }),
  /** A row a limit would refuse (the dry run): the payout would end limit_exceeded. */
  'recipient.limit': entry<{
    limit: string;
    limitKopecks: number;
    leftKopecks: number;
    year: number;
    amount: number;
  }>({
    ru: (p) =>
      `${money(p.amount)} превысит ${{ yearly_cap: `лимит дохода самозанятого за ${p.year} год`, per_payout: 'лимит одной выплаты', per_month: 'месячный лимит' }[p.limit] ?? p.limit} ${money(p.limitKopecks)}${p.limit === 'per_payout' ? '' : `: осталось ${money(p.leftKopecks)}`} (limit_exceeded)`,
    en: (p) =>
      `${money(p.amount)} would pass ${{ yearly_cap: `the self-employed income cap for ${p.year},`, per_payout: 'the per-payout limit of', per_month: 'the monthly limit of' }[p.limit] ?? p.limit} ${money(p.limitKopecks)}${p.limit === 'per_payout' ? '' : `: ${money(p.leftKopecks)} left`} (limit_exceeded)`,
  }),
  /** One person's headroom in the dry run: now, and after the rows of the file that would be paid. */
  'recipient.headroom.line': entry<{
    who: string;
    year: number;
    cap?: { limitKopecks: number; leftKopecks: number; afterKopecks: number };
    month?: { limitKopecks: number; leftKopecks: number; afterKopecks: number };
    perPayoutKopecks?: number;
  }>({
    ru: (p) =>
      `  ${p.who}, ${p.year}: ${[
        p.cap &&
          `лимит дохода самозанятого ${money(p.cap.limitKopecks)}: осталось ${money(p.cap.leftKopecks)}, после файла ${money(p.cap.afterKopecks)}`,
        p.month &&
          `месячный лимит ${money(p.month.limitKopecks)}: осталось ${money(p.month.leftKopecks)}, после файла ${money(p.month.afterKopecks)}`,
        p.perPayoutKopecks !== undefined && `лимит одной выплаты ${money(p.perPayoutKopecks)}`,
      ]
        .filter(Boolean)
        .join('; ')}`,
    en: (p) =>
      `  ${p.who}, ${p.year}: ${[
        p.cap &&
          `self-employed income cap ${money(p.cap.limitKopecks)}: ${money(p.cap.leftKopecks)} left, ${money(p.cap.afterKopecks)} after this file`,
        p.month &&
          `monthly limit ${money(p.month.limitKopecks)}: ${money(p.month.leftKopecks)} left, ${money(p.month.afterKopecks)} after this file`,
        p.perPayoutKopecks !== undefined && `per-payout limit ${money(p.perPayoutKopecks)}`,
      ]
        .filter(Boolean)
        .join('; ')}`,
  }),
  'recipient.headroom.heading': entry({
    ru: () => 'Лимиты получателей (сколько ещё можно выплатить):',
    en: () => "Recipients' limits (what can still be paid):",
  }),
  // The console's recipient page (src/console/views-recipients.ts).
  'recipient.page.nav': entry({ ru: () => 'Получатель', en: () => 'Recipient' }),
  'recipient.page.heading': entry({
    ru: () => 'Получатель: год выплат',
    en: () => "Recipient: the year's payouts",
  }),
  'recipient.page.inn': entry({ ru: () => 'ИНН получателя', en: () => "Recipient's tax number (INN)" }),
  'recipient.page.find': entry({ ru: () => 'Показать', en: () => 'Show' }),
  'recipient.page.invalid': entry({
    ru: () => 'ИНН — 10 или 12 цифр',
    en: () => 'a tax number (INN) is 10 or 12 digits',
  }),
  'recipient.page.check_digits': entry({
    ru: () => 'Контрольные цифры ИНН не сходятся: проверьте, нет ли опечатки',
    en: () => "the tax number's (INN's) check digits do not match: a typo?",
  }),
  'recipient.page.region': entry({
    ru: () => 'ИНН не может начинаться с 00: такого региона нет',
    en: () => 'a tax number (INN) does not start with 00 (no such region)',
  }),
  'recipient.page.hint': entry({
    ru: () =>
      'ИНН показывается только последними цифрами и не попадает в адрес страницы. Суммы — по учёту payrun за календарный год по московскому времени; доход из других источников payrun не видит.',
    en: () =>
      "The tax number is shown by its last digits only and never goes into the page's address. Figures are payrun's own, by calendar year in Moscow time; payrun does not see income from elsewhere.",
  }),
  /** `known`: the income from elsewhere the policy knows of, which the cap counts too (as the CLI says it). */
  'recipient.page.left': entry<{ what: 'cap' | 'month'; limit: number; left: number; known?: number }>({
    ru: (p) =>
      `${p.what === 'cap' ? 'Лимит дохода самозанятого' : 'Месячный лимит'} ${money(p.limit)}${p.known ? `, доход из других источников ${money(p.known)}` : ''}: можно выплатить ещё ${money(p.left)}`,
    en: (p) =>
      `${p.what === 'cap' ? 'Self-employed income cap' : 'Monthly limit'} ${money(p.limit)}${p.known ? `, income from elsewhere ${money(p.known)}` : ''}: ${money(p.left)} can still be paid`,
  }),
  'recipient.page.perPayout': entry<{ limit: number }>({
    ru: (p) => `Лимит одной выплаты ${money(p.limit)}`,
    en: (p) => `Per-payout limit ${money(p.limit)}`,
  }),
  'recipient.page.column': entry<{ column: 'when' | 'reference' | 'amount' | 'state' }>({
    ru: (p) => ({ when: 'Когда', reference: 'Референс', amount: 'Сумма', state: 'Состояние' })[p.column],
    en: (p) => ({ when: 'When', reference: 'Reference', amount: 'Amount', state: 'State' })[p.column],
  }),
  'recipient.page.state': entry<{ state: string }>({
    ru: (p) => ({ paid: 'выплачено', reserved: 'в резерве', returned: 'возвращено' })[p.state] ?? p.state,
    en: (p) => p.state,
  }),
  /** Reservations the ledger refused as not from a payout: shown, never counted (workflows/recipient-ledger/workflow.ts). */
  'recipient.refused.heading': entry({
    ru: () => '  отклонённые резервы (не от выплаты, не учтены):',
    en: () => '  refused reservations (not from a payout, never counted):',
  }),
  'recipient.refused': entry<{ when: string; reference: string; amount: number; why: UnprovenWhy }>({
    ru: (p) => `    ${p.when} ${p.reference} ${money(p.amount)} отклонён: ${UNPROVEN_RU[p.why] ?? p.why}`,
    en: (p) => `    ${p.when} ${p.reference} ${money(p.amount)} refused: ${UNPROVEN_EN[p.why] ?? p.why}`,
  }),
  'recipient.page.refused': entry({
    ru: () => 'Отклонённые резервы: не от выплаты, в суммах не учтены',
    en: () => 'Refused reservations: not from a payout, counted nowhere',
  }),
  'recipient.page.why': entry<{ why: UnprovenWhy }>({
    ru: (p) => UNPROVEN_RU[p.why] ?? p.why,
    en: (p) => UNPROVEN_EN[p.why] ?? p.why,
  }),
  /** A tax number on the command line that cannot be anyone's (never repeated back: personal data). */
  'recipient.inn': entry<{ rule: 'format' | 'format12' | 'checksum' | 'region' }>({
    ru: (p) =>
      ({
        format: 'ожидается ИНН: 10 или 12 цифр',
        format12: 'ожидается ИНН самозанятого: 12 цифр',
        checksum: 'контрольные цифры ИНН не сходятся: опечатка?',
        region: 'ИНН не начинается с 00 (такого региона нет)',
      })[p.rule],
    en: (p) =>
      ({
        format: 'expected a tax number (INN): 10 or 12 digits',
        format12: "expected a self-employed person's tax number (INN): 12 digits",
        checksum: "the tax number's (INN's) check digits do not match: a typo?",
        region: 'a tax number (INN) does not start with 00 (no such region)',
      })[p.rule],
  }),
};
