import { entry } from './lang';

/**
 * The console's reconciliation page, retry-failed, search, file template, repeated-file warning and proof
 * downloads (src/console/routes-work.ts, routes-reconcile.ts): issue 39's "whole job in the console".
 */
export const CONSOLE_WORK_MESSAGES = {
  'work.nav.reconcile': entry({ ru: () => 'Сверка', en: () => 'Reconciliation' }),
  'work.nav.search': entry({ ru: () => 'Поиск', en: () => 'Search' }),
  'work.recon.heading': entry({ ru: () => 'Сверка с банком', en: () => 'Reconciliation with the bank' }),
  'work.recon.none': entry({
    ru: () => 'Сверок ещё не было: их запускает расписание или команда payrun reconcile day.',
    en: () => 'Nothing reconciled yet: the schedule or the command payrun reconcile day runs it.',
  }),
  'work.recon.account': entry<{ account: string; last: string; open: number; behind: number }>({
    ru: (p) =>
      `Счёт ${p.account}: сверен по ${p.last}; открытых расхождений: ${p.open}; несверенных дней: ${p.behind}.`,
    en: (p) =>
      `Account ${p.account}: reconciled up to ${p.last}; open differences: ${p.open}; days not reconciled: ${p.behind}.`,
  }),
  'work.recon.days': entry({ ru: () => 'Дни', en: () => 'Days' }),
  'work.recon.day': entry({ ru: () => 'День', en: () => 'Day' }),
  'work.recon.state': entry({ ru: () => 'Итог', en: () => 'Outcome' }),
  'work.recon.files': entry({ ru: () => 'Файлы', en: () => 'Files' }),
  'work.recon.clean': entry({ ru: () => 'сверен, расхождений нет', en: () => 'reconciled, no differences' }),
  'work.recon.withDifferences': entry<{ n: number }>({
    ru: (p) => `сверен, с расхождениями (открытых: ${p.n})`,
    en: (p) => `reconciled, with differences (open: ${p.n})`,
  }),
  'work.recon.noStatement': entry<{ error: string }>({
    ru: (p) => `не сверен: выписки банка нет (${p.error})`,
    en: (p) => `not reconciled: no bank statement (${p.error})`,
  }),
  'work.recon.neverRun': entry({
    ru: () => 'не сверен: сверка не запускалась',
    en: () => 'not reconciled: never run',
  }),
  'work.recon.report': entry({ ru: () => 'отчёт CSV', en: () => 'report CSV' }),
  'work.recon.oneC': entry({ ru: () => 'файл для 1С', en: () => '1C file' }),
  'work.recon.open': entry({ ru: () => 'Открытые расхождения', en: () => 'Open differences' }),
  'work.recon.noneOpen': entry({ ru: () => 'Открытых расхождений нет.', en: () => 'No open differences.' }),
  'work.recon.key': entry({ ru: () => 'Расхождение', en: () => 'Difference' }),
  'work.recon.kind': entry({ ru: () => 'Что не сходится', en: () => 'What differs' }),
  'work.recon.reference': entry({ ru: () => 'Референс', en: () => 'Reference' }),
  'work.recon.amounts': entry({ ru: () => 'payrun / банк', en: () => 'payrun / bank' }),
  'work.recon.todo': entry({ ru: () => 'Что делать', en: () => 'What to do' }),
  'work.recon.resolve': entry({ ru: () => 'Закрыть', en: () => 'Resolve' }),
  'work.recon.reason': entry({ ru: () => 'Причина', en: () => 'Reason' }),
  'work.recon.resolveHint': entry({
    ru: () =>
      'Закрытие подписывается вашим ключом доступа (passkey), как утверждение: исполнитель проверяет подпись по своей политике и хранит её с причиной.',
    en: () =>
      'A resolution is signed with your passkey, like an approval: the worker checks it under its own policy and keeps it with the reason.',
  }),
  'work.recon.signing': entry({
    ru: () => 'Подтвердите ключом доступа…',
    en: () => 'Confirm with your passkey…',
  }),
  'work.recon.cancelled': entry({
    ru: () => 'Подпись ключом доступа отменена: расхождение не закрыто.',
    en: () => 'The passkey was not used: the difference stays open.',
  }),
  'work.recon.noPasskey': entry({
    ru: () =>
      'Закрыть расхождение можно только своим ключом доступа (passkey) или командой payrun reconcile resolve со своим ключом: у вас ключа доступа нет.',
    en: () =>
      'A difference is resolved only with your own passkey or with payrun reconcile resolve and your own key: you have no passkey.',
  }),
  'work.recon.notThis': entry({
    ru: () => 'Подписано не то закрытие (другой человек, счёт или расхождение): ничего не закрыто.',
    en: () =>
      'The signed resolution is not this one (another person, account or difference): nothing resolved.',
  }),
  'work.recon.noReason': entry({
    ru: () => 'Напишите причину: без неё расхождение не закрывается.',
    en: () => 'Give a reason: a difference is not resolved without one.',
  }),
  'work.recon.resolved': entry({ ru: () => 'Закрытые расхождения', en: () => 'Resolved differences' }),
  'work.recon.resolvedBy': entry<{ by: string; at: string; reason: string }>({
    ru: (p) => `закрыл ${p.by}, ${p.at}: «${p.reason}»`,
    en: (p) => `resolved by ${p.by}, ${p.at}: “${p.reason}”`,
  }),
  'work.recon.mayNotResolve': entry({
    ru: () =>
      'Закрывать расхождения могут роли подготовка, утверждение и администратор; вам доступен просмотр.',
    en: () => 'Preparers, approvers and admins resolve differences; you may view them.',
  }),
  'work.retry.button': entry({
    ru: () => 'Повторить неоплаченные строки',
    en: () => 'Retry the unpaid rows',
  }),
  'work.retry.hint': entry({
    ru: () =>
      'Создаётся новый пакет только из строк, которые не оплачены (ошибка, отказ, отмена, истёк срок). Он ждёт своего утверждения.',
    en: () =>
      'A new batch is made of only the rows not paid (failed, refused, cancelled, expired). It waits for its own approval.',
  }),
  'work.retry.started': entry<{ batchId: string; rows: number; total: string; from: string }>({
    ru: (p) =>
      `Создан пакет-повтор ${p.batchId} из ${p.from}: строк ${p.rows} на ${p.total}. Он ждёт своего утверждения; до него ничего не платится.`,
    en: (p) =>
      `Retry batch ${p.batchId} made from ${p.from}: ${p.rows} row(s), ${p.total}. It waits for its own approval; nothing pays before it.`,
  }),
  'work.retry.refused': entry<{ why: string }>({
    ru: (p) => `Повтор не создан: ${p.why}`,
    en: (p) => `No retry made: ${p.why}`,
  }),
  'work.search.heading': entry({ ru: () => 'Поиск', en: () => 'Search' }),
  'work.search.label': entry({
    ru: () => 'Фамилия, референс или ИНН',
    en: () => 'Surname, reference or INN',
  }),
  'work.search.submit': entry({ ru: () => 'Найти', en: () => 'Find' }),
  'work.search.hint': entry({
    ru: () =>
      'Ищет среди последних пакетов: фамилию получателя или отправителя (регистр не важен), референс, ИНН целиком.',
    en: () =>
      'Looks through the latest batches: the recipient’s or submitter’s surname (any case), a reference, a whole INN.',
  }),
  'work.search.nothing': entry<{ q: string }>({
    ru: (p) => `По запросу «${p.q}» ничего не найдено.`,
    en: (p) => `Nothing found for “${p.q}”.`,
  }),
  'work.search.found': entry<{ n: number; more: boolean }>({
    ru: (p) => `Найдено: ${p.n}${p.more ? ' (показаны первые)' : ''}.`,
    en: (p) => `Found: ${p.n}${p.more ? ' (the first shown)' : ''}.`,
  }),
  'work.search.batch': entry({ ru: () => 'Пакет', en: () => 'Batch' }),
  'work.search.row': entry({ ru: () => 'Строка', en: () => 'Row' }),
  'work.search.name': entry({ ru: () => 'Получатель', en: () => 'Recipient' }),
  'work.search.inn': entry({ ru: () => 'ИНН', en: () => 'INN' }),
  'work.search.amount': entry({ ru: () => 'Сумма', en: () => 'Amount' }),
  'work.search.why': entry({ ru: () => 'Совпало', en: () => 'Matched' }),
  'work.search.bySubmitter': entry<{ name: string }>({
    ru: (p) => `отправил ${p.name}`,
    en: (p) => `submitted by ${p.name}`,
  }),
  'work.search.byRecipient': entry({ ru: () => 'получатель', en: () => 'recipient' }),
  'work.search.byReference': entry({ ru: () => 'референс', en: () => 'reference' }),
  'work.search.byInn': entry({ ru: () => 'ИНН', en: () => 'INN' }),
  'work.template.heading': entry({ ru: () => 'Шаблон файла', en: () => 'File template' }),
  'work.template.utf8': entry({ ru: () => 'шаблон в UTF-8', en: () => 'template in UTF-8' }),
  'work.template.cp1251': entry({
    ru: () => 'шаблон в Windows-1251 (Excel)',
    en: () => 'template in Windows-1251 (Excel)',
  }),
  'work.template.hint': entry({
    ru: () =>
      'Заголовки по-русски, разделитель «;», одна строка-пример: замените её своими строками (docs/batch-format.md).',
    en: () =>
      'Russian headers, «;» as the separator, one example row: replace it with your rows (docs/batch-format.md).',
  }),
  'work.repeat.sameContent': entry<{ batchId: string; name: string; at: string }>({
    ru: (p) =>
      `Внимание: ровно эти строки (тот же файл по содержимому) уже отправлены — пакет ${p.batchId} («${p.name}», ${p.at}). Повторная отправка ничего не оплатит дважды.`,
    en: (p) =>
      `Note: exactly these rows (the same file by content) were submitted before — batch ${p.batchId} (“${p.name}”, ${p.at}). Submitting again pays nothing twice.`,
  }),
  'work.repeat.sameName': entry<{ batchId: string; name: string; at: string }>({
    ru: (p) =>
      `Внимание: файл с таким же именем «${p.name}» уже отправлялся — пакет ${p.batchId} (${p.at}); его строки другие. Проверьте, что это не тот же список.`,
    en: (p) =>
      `Note: a file of the same name “${p.name}” was submitted before — batch ${p.batchId} (${p.at}); its rows differ. Check it is not the same list.`,
  }),
  'work.dry.name': entry({ ru: () => 'Получатель', en: () => 'Recipient' }),
  'work.dry.farAbove': entry<{ median: string; rows: string }>({
    ru: (p) => `Суммы намного выше обычной для файла (медиана ${p.median}) в строках ${p.rows}.`,
    en: (p) => `Amounts far above the file’s typical one (median ${p.median}) in rows ${p.rows}.`,
  }),
  'work.proof.heading': entry({
    ru: () => 'Подтверждение банка (для аудитора)',
    en: () => 'The bank’s proof (for an auditor)',
  }),
  'work.proof.hint': entry({
    ru: () =>
      'Четыре файла, как их пишет payrun payout proof: тело уведомления банка байт в байт, подпись, ключ банка и VERIFY.txt со строкой openssl. Скачайте все в одну папку.',
    en: () =>
      'Four files, as payrun payout proof writes them: the bank’s notification body byte for byte, its signature, the bank’s key and VERIFY.txt with the openssl line. Download all into one folder.',
  }),
  'work.proof.unavailable': entry({
    ru: () => 'Подтверждение недоступно: консоли не задан ключ банка (BANK_PUBLIC_KEY_*).',
    en: () => 'No proof here: the console has no bank key (BANK_PUBLIC_KEY_*).',
  }),
  'work.proof.mayNot': entry({
    ru: () => 'скачивать подтверждения банка (роли администратор и просмотр — аудитор)',
    en: () => 'download the bank’s proofs (roles admin and viewer — the auditor)',
  }),
};
