/**
 * What a batch tells accounting: row states in words, the summary, the report's own reasons,
 * `batch status`, the dry run; and what `payout status` may use. Russian and English.
 */
import { columnName } from './csv';
import { entry, listRows, money, moscowTime, plural, pluralEn } from './lang';

/** A row's or payout's state in words; the code itself stays in the report's state column. */
const STATE: Record<string, { ru: string; en: string }> = {
  succeeded: { ru: 'выплачено', en: 'succeeded' },
  credited: { ru: 'зачислено', en: 'credited' },
  returned: { ru: 'возвращено банком получателя', en: 'returned' },
  failed: { ru: 'не выплачено', en: 'failed' },
  rejected: { ru: 'отклонено', en: 'rejected' },
  expired: { ru: 'истекло', en: 'expired' },
  cancelled: { ru: 'отменено', en: 'cancelled' },
  needs_attention: { ru: 'требует проверки', en: 'needs_attention' },
  limit_exceeded: { ru: 'превышен лимит получателя', en: 'limit_exceeded' },
  already_paid: { ru: 'уже выплачено ранее', en: 'already_paid' },
  reference_conflict: { ru: 'конфликт референса', en: 'reference_conflict' },
  invalid: { ru: 'с ошибками', en: 'invalid' },
  not_processed: { ru: 'не обработано', en: 'not_processed' },
  scheduled: { ru: 'ждёт даты выплаты', en: 'scheduled' },
  reconciling: { ru: 'сверяется с банком', en: 'reconciling' },
  checking_taxpayer: { ru: 'проверка самозанятого', en: 'checking_taxpayer' },
  creating_session: { ru: 'создаётся в банке', en: 'creating_session' },
  awaiting_ready_to_confirm: { ru: 'ждёт готовности банка', en: 'awaiting_ready_to_confirm' },
  awaiting_approval: { ru: 'ждёт утверждения', en: 'awaiting_approval' },
  confirming: { ru: 'подтверждается', en: 'confirming' },
  awaiting_result: { ru: 'ждёт результата банка', en: 'awaiting_result' },
};
const PHASE: Record<string, { ru: string; en: string }> = {
  awaiting_approval: { ru: 'ждёт утверждения', en: 'awaiting approval' },
  awaiting_funds: { ru: 'ждёт пополнения депозита', en: 'awaiting funds' },
  paying: { ru: 'идут выплаты', en: 'paying' },
  paused: { ru: 'приостановлен', en: 'paused' },
  cancelling: { ru: 'отменяется', en: 'cancelling' },
  done: { ru: 'завершён', en: 'finished' },
};

export interface AmountPart {
  count: number;
  kopecks: number;
  unreadable: number;
}
export interface NamedRow {
  row: number;
  reference: string;
  amount: number;
}

const ROWS_RU = ['строка', 'строки', 'строк'] as const;
const AMOUNTS_RU = ['нечитаемая сумма', 'нечитаемые суммы', 'нечитаемых сумм'] as const;

function amountRu(s: AmountPart): string {
  if (s.unreadable === 0) return money(s.kopecks);
  if (s.unreadable === s.count) return s.count === 1 ? 'сумма не читается' : 'суммы не читаются';
  return `${money(s.kopecks)} + ${plural(s.unreadable, AMOUNTS_RU)}`;
}
function amountEn(s: AmountPart): string {
  if (s.unreadable === 0) return money(s.kopecks);
  if (s.unreadable === s.count) return s.count === 1 ? 'amount unreadable' : 'amounts unreadable';
  return `${money(s.kopecks)} + ${pluralEn(s.unreadable, 'unreadable amount', 'unreadable amounts')}`;
}
const namedRows = (rows: readonly NamedRow[], lang: 'ru' | 'en') =>
  rows
    .map((r) => `${lang === 'ru' ? 'строка' : 'row'} ${r.row} ${r.reference} ${money(r.amount)}`)
    .join('; ');

export const BATCH_MESSAGES = {
  'state.name': entry<{ state: string }>({
    ru: (p) => STATE[p.state]?.ru ?? p.state,
    en: (p) => STATE[p.state]?.en ?? p.state,
  }),
  'batch.phase': entry<{ phase: string }>({
    ru: (p) => PHASE[p.phase]?.ru ?? p.phase,
    en: (p) => PHASE[p.phase]?.en ?? p.phase,
  }),
  /** One state's part of a summary or status: "выплачено 3 (4 500,00 ₽)". */
  'summary.part': entry<{ state: string; part: AmountPart }>({
    // Invalid rows are counted in words of their own: «ошибка в строке 19» read as a row number.
    ru: (p) =>
      p.state === 'invalid'
        ? `строк с ошибками: ${p.part.count} (${amountRu(p.part)})`
        : `${STATE[p.state]?.ru ?? p.state} ${p.part.count} (${amountRu(p.part)})`,
    en: (p) =>
      p.state === 'invalid'
        ? `invalid rows: ${p.part.count} (${amountEn(p.part)})`
        : `${STATE[p.state]?.en ?? p.state} ${p.part.count} (${amountEn(p.part)})`,
  }),
  'summary.text': entry<{
    total: AmountPart;
    unreadableRows: readonly number[];
    unreadableRowCount: number;
    parts: readonly string[];
  }>({
    ru: (p) =>
      `${plural(p.total.count, ROWS_RU)}, ${money(p.total.kopecks)}` +
      (p.total.unreadable === 0
        ? ''
        : ` + ${plural(p.total.unreadable, AMOUNTS_RU)}${p.unreadableRowCount ? ` (${listRows(p.unreadableRows, 'ru', 10, p.unreadableRowCount)})` : ''}`) +
      (p.parts.length ? `: ${p.parts.join(', ')}` : ''),
    en: (p) =>
      `${pluralEn(p.total.count, 'row', 'rows')}, ${money(p.total.kopecks)}` +
      (p.total.unreadable === 0
        ? ''
        : ` + ${pluralEn(p.total.unreadable, 'unreadable amount', 'unreadable amounts')}${p.unreadableRowCount ? ` (${listRows(p.unreadableRows, 'en', 10, p.unreadableRowCount)})` : ''}`) +
      (p.parts.length ? `: ${p.parts.join(', ')}` : ''),
  }),
  'summary.file': entry<{ batchId: string; retryOf?: string; file: string; summary: string; report: string }>(
    {
      ru: (p) =>
        [
          `пакет ${p.batchId}${p.retryOf ? ` (повтор пакета ${p.retryOf})` : ''}`,
          `файл ${p.file}`,
          p.summary,
          `отчёт ${p.report}`,
        ].join('\n'),
      en: (p) =>
        [
          `batch ${p.batchId}${p.retryOf ? ` (retry of ${p.retryOf})` : ''}`,
          `file ${p.file}`,
          p.summary,
          `report ${p.report}`,
        ].join('\n'),
    },
  ),
  'report.not_processed': entry({ ru: () => 'не обработано', en: () => 'not processed' }),
  /** The report's last column: the state in words beside its code. */
  'report.state_words_header': entry({ ru: () => 'Результат', en: () => 'Result' }),
  'report.file_rejected': entry<{ why: string | null }>({
    ru: (p) => `не выплачено: файл отклонён (${p.why ?? 'в других строках ошибки'})`,
    en: (p) => `not paid: the file was rejected (${p.why ?? 'other rows are invalid'})`,
  }),
  'report.batch_cancelled': entry({
    ru: () => 'пакет отменён до начала этой выплаты',
    en: () => 'the batch was cancelled before this payout started',
  }),
  'report.reference_conflict_amount': entry<{ then: number; now: number }>({
    ru: (p) => `сумма (была ${money(p.then)}, в файле ${money(p.now)})`,
    en: (p) => `amount (${money(p.then)} then, ${money(p.now)} in the file)`,
  }),
  /** `phase`: the state already in words (src/i18n/batch-state.ts stateLine); a bare phase code is named. */
  'status.head': entry<{ batchId: string; phase: string; file?: string }>({
    ru: (p) => `${p.batchId}: ${PHASE[p.phase]?.ru ?? p.phase}${p.file ? ` — ${p.file}` : ''}`,
    en: (p) => `${p.batchId}: ${PHASE[p.phase]?.en ?? p.phase}${p.file ? ` — ${p.file}` : ''}`,
  }),
  'status.rows': entry<{
    rows: number;
    total: number;
    invalid: number;
    dispatched: number;
    inFlight: number;
    scheduled?: number;
    finished: number;
  }>({
    ru: (p) =>
      `строк к выплате ${p.rows} (${money(p.total)}), с ошибками ${p.invalid}; начато ${p.dispatched}, в работе ${p.inFlight}${p.scheduled ? ` (из них ждут даты выплаты ${p.scheduled})` : ''}, завершено ${p.finished}`,
    en: (p) =>
      `rows ${p.rows} valid (${money(p.total)}), ${p.invalid} invalid; started ${p.dispatched}, in flight ${p.inFlight}${p.scheduled ? ` (${p.scheduled} of them scheduled for a later day)` : ''}, finished ${p.finished}`,
  }),
  'status.nothing_finished': entry({
    ru: () => 'пока ничего не завершено',
    en: () => 'nothing finished yet',
  }),
  'status.approval_given': entry<{ by: string; at: string }>({
    ru: (p) => `утверждение: дал(а) ${p.by}, ${moscowTime(p.at, 'ru')}`,
    en: (p) => `approval: given by ${p.by} at ${moscowTime(p.at, 'en')}`,
  }),
  /** Approvals so far (count of of, by whom) while the batch waits for more. */
  'status.approval_waiting': entry<{ count: number; of: number; by: readonly string[] }>({
    ru: (p) =>
      `утверждение: ожидается (payrun batch approve ID); утверждений: ${p.count} из ${p.of}` +
      (p.count
        ? `, ждём ${p.of - p.count > 1 ? 'других утверждающих' : 'другого утверждающего'} (утвердил(и): ${p.by.join(', ')})`
        : ''),
    en: (p) =>
      `approval: waiting (payrun batch approve ID); approvals: ${p.count} of ${p.of}` +
      (p.count
        ? `, waiting for ${p.of - p.count > 1 ? 'other approvers' : 'another approver'} (approved by ${p.by.join(', ')})`
        : ''),
  }),
  /** Why a batch waits beyond the usual approval: its record lost its submitter, or a daily limit. */
  'status.no_submitter': entry({
    ru: () =>
      '  в записи файла нет проверенного заявления об отправке: никто не может его одобрить, пока файл не отправят повторно (payrun batch submit ФАЙЛ)',
    en: () =>
      "  the file's record has no verified submit statement: nobody can approve it until the file is resubmitted (payrun batch submit FILE)",
  }),
  'status.daily_limit': entry<{ person: string; day: string; sum: string; limit: string; needed: string }>({
    ru: (p) =>
      `  одобрения ${p.person} без второго человека за ${p.day} с этим файлом составили бы ${p.sum} — больше дневного лимита ${p.limit}: нужно одобрений: ${p.needed}`,
    en: (p) =>
      `  ${p.person}'s approvals alone on ${p.day} would total ${p.sum} with this file, more than the daily limit of ${p.limit}: ${p.needed} approvers needed`,
  }),
  'status.daily_unknown': entry<{ person: string; day: string; why: string; needed: string }>({
    ru: (p) =>
      `  сумму одобрений ${p.person} за ${p.day} проверить нельзя (${p.why}): нужно одобрений: ${p.needed}`,
    en: (p) =>
      `  ${p.person}'s approvals of ${p.day} cannot be summed (${p.why}): ${p.needed} approvers needed`,
  }),
  'status.funds': entry<{ balance: number; needed: number; checkedAt?: string }>({
    ru: (p) =>
      `депозит ${money(p.balance)}, к выплате ${money(p.needed)}${p.checkedAt ? ` (проверено ${moscowTime(p.checkedAt, 'ru')})` : ''}`,
    en: (p) =>
      `deposit ${money(p.balance)} for ${money(p.needed)} to pay${p.checkedAt ? ` (checked ${moscowTime(p.checkedAt, 'en')})` : ''}`,
  }),
  'status.shortfall': entry<{ short: number }>({
    ru: (p) => `не хватает ${money(p.short)}: пакет ждёт пополнения депозита`,
    en: (p) => `short by ${money(p.short)}: the batch waits for funds`,
  }),
  'status.largest': entry<{ rows: readonly NamedRow[] }>({
    ru: (p) => `самые крупные строки: ${namedRows(p.rows, 'ru')}`,
    en: (p) => `the largest rows: ${namedRows(p.rows, 'en')}`,
  }),
  'status.failure': entry<{ row: number; reference: string; state: string; code?: string; reason?: string }>({
    ru: (p) =>
      `строка ${p.row} ${p.reference}: ${STATE[p.state]?.ru ?? p.state}${p.code ? ` (${p.code})` : ''}${p.reason ? ` — ${p.reason}` : ''}`,
    en: (p) =>
      `row ${p.row} ${p.reference}: ${p.state}${p.code ? ` ${p.code}` : ''}${p.reason ? ` — ${p.reason}` : ''}`,
  }),
  'status.more': entry<{ failures: number; invalid: number }>({
    ru: (p) =>
      `… ещё ${[p.failures ? `${plural(p.failures, ['невыплаченная', 'невыплаченные', 'невыплаченных'])}` : '', p.invalid ? `${plural(p.invalid, ['строка с ошибкой', 'строки с ошибками', 'строк с ошибками'])}` : ''].filter(Boolean).join(' и ')} — в отчёте`,
    en: (p) =>
      `… ${[p.failures ? `${p.failures} more not paid` : '', p.invalid ? `${pluralEn(p.invalid, 'invalid row', 'invalid rows')}` : ''].filter(Boolean).join(' and ')} in the report`,
  }),
  'status.stopped': entry<{ reason: string }>({
    ru: (p) => `пакет остановлен, больше ничего из него не выплачивается: ${p.reason}`,
    en: (p) => `the batch stopped, nothing more of it is paid: ${p.reason}`,
  }),
  'store.sealed': entry<{ resealed: number; current: number }>({
    ru: (p) => `запечатано заново: ${p.resealed}; уже запечатаны на своём месте: ${p.current}`,
    en: (p) => `sealed again: ${p.resealed}; already sealed in place: ${p.current}`,
  }),
  'store.migrated': entry<{ where: string }>({
    ru: (p) => `таблицы хранилища пакетов обновлены: ${p.where}`,
    en: (p) => `the batch store's tables are up to date: ${p.where}`,
  }),
  'store.migrate_folder': entry({
    ru: () => 'PAYRUN_BATCH_STORE не postgres: у хранилища в папке нет таблиц, обновлять нечего',
    en: () => 'PAYRUN_BATCH_STORE is not postgres: the folder store has no tables to bring up to date',
  }),
  'store.seal_failed': entry<{ count: number; first: string }>({
    ru: (p) =>
      `не открылись и оставлены как есть: ${p.count} (первая: ${p.first}); ничего из их пакетов не выплачивается`,
    en: (p) =>
      `did not open and were left as they are: ${p.count} (the first: ${p.first}); nothing of their batches is paid`,
  }),
  'status.report': entry<{ report: string; summary: string }>({
    ru: (p) => `отчёт ${p.report}\nитоги ${p.summary}`,
    en: (p) => `report ${p.report}\nsummary ${p.summary}`,
  }),
  'dryrun.rejected': entry({ ru: () => 'файл будет отклонён:', en: () => 'the file would be rejected:' }),
  'dryrun.row': entry<{ row: number; reference: string; amount: number; why?: string }>({
    ru: (p) =>
      `строка ${p.row} ${p.reference} ${money(p.amount)}: ${p.why ? `не будет выплачено — ${p.why}` : 'будет выплачено'}`,
    en: (p) =>
      `row ${p.row} ${p.reference} ${money(p.amount)}: ${p.why ? `would not be paid — ${p.why}` : 'would be paid'}`,
  }),
  'dryrun.invalid': entry<{ error: string }>({
    ru: (p) => `${p.error}: ошибка, не будет выплачено`,
    en: (p) => `${p.error}: invalid, not paid`,
  }),
  'dryrun.total': entry<{ paying: number; rows: number; pay: number; balance: number; short: number }>({
    ru: (p) =>
      `будет выплачено ${p.paying} из ${plural(p.rows, ['строки', 'строк', 'строк'])}, ${money(p.pay)}; депозит ${money(p.balance)}` +
      (p.short ? ` — не хватает ${money(p.short)}: пакет будет ждать пополнения` : ' — достаточно'),
    en: (p) =>
      `would pay ${p.paying} of ${p.rows} rows, ${money(p.pay)}; deposit ${money(p.balance)}` +
      (p.short ? ` — short by ${money(p.short)}: the batch would wait for funds` : ' — enough'),
  }),
  'dryrun.far_above': entry<{ median: number; rows: readonly NamedRow[]; factor: number }>({
    ru: (p) =>
      `проверьте суммы: в ${p.factor} и более раз выше обычной для этого файла (медиана ${money(p.median)}) — ${namedRows(p.rows, 'ru')}`,
    en: (p) =>
      `check these amounts: ${p.factor} times or more this file's typical amount (median ${money(p.median)}) — ${namedRows(p.rows, 'en')}`,
  }),
  'dryrun.checked': entry<{ count: number }>({
    ru: (p) => `проверено ИНН в банке: ${p.count}; платёжная сессия не создавалась`,
    en: (p) =>
      `checked ${pluralEn(p.count, 'tax number', 'tax numbers')} with the bank; no payment session was created`,
  }),
  'dryrun.no_answer': entry({
    ru: () => 'налоговая служба не ответила за 30 с',
    en: () => 'the tax service did not answer within 30 s',
  }),
  'taxpayer.not_self_employed': entry({
    ru: () => 'получатель не плательщик налога на профессиональный доход',
    en: () => 'the recipient is not a professional income taxpayer',
  }),
  'taxpayer.not_linked': entry({
    ru: () => 'получатель не подключил партнёра payrun в «Мой налог»',
    en: () => 'the recipient has not linked payrun’s partner in the tax service',
  }),
  'taxpayer.error': entry<{ code: string }>({
    ru: (p) => `проверка в налоговой службе не завершилась (${p.code})`,
    en: (p) => `the tax service check did not complete (${p.code})`,
  }),
  'reference.already_paid': entry<{ by: string | null }>({
    ru: (p) => `уже выплачено ${p.by ? `пакетом ${p.by}` : 'вне пакетов'}; повторно не платится`,
    en: (p) => `already_paid by ${p.by ? `batch ${p.by}` : 'a payout outside any batch'}; not paid again`,
  }),
  'reference.conflict': entry<{ by: string | null; differences: string }>({
    ru: (p) =>
      `конфликт референса: уже выплачено ${p.by ? `пакетом ${p.by}` : 'вне пакетов'} другому получателю или другую сумму (отличается: ${p.differences})`,
    en: (p) =>
      `reference_conflict: already paid by ${p.by ? `batch ${p.by}` : 'a payout outside any batch'} to another payee or amount (differs: ${p.differences})`,
  }),
  'watch.start': entry<{ inbox: string; seconds: number }>({
    ru: (p) => `слежу за ${p.inbox} каждые ${p.seconds} с (Ctrl-C — остановить)`,
    en: (p) => `watching ${p.inbox} every ${p.seconds} s (Ctrl-C stops)`,
  }),
  'watch.submitted': entry<{ file: string; batchId: string }>({
    ru: (p) => `${p.file}: отправлен как ${p.batchId}`,
    en: (p) => `${p.file}: submitted as ${p.batchId}`,
  }),
  'watch.rejected': entry<{ file: string; errors: number; errorsPath: string }>({
    ru: (p) =>
      `${p.file}: отклонён (${plural(p.errors, ['ошибка', 'ошибки', 'ошибок'])}, см. ${p.errorsPath}); ничего не выплачено`,
    en: (p) => `${p.file}: rejected (${p.errors} error(s), see ${p.errorsPath}); nothing paid`,
  }),
  'watch.already_submitted': entry<{ file: string; batchId: string }>({
    ru: (p) => `${p.file}: уже отправлен как ${p.batchId}; дважды не платится`,
    en: (p) => `${p.file}: already submitted as ${p.batchId}; nothing paid twice`,
  }),
  'watch.resubmitted': entry<{ file: string; batchId: string }>({
    ru: (p) =>
      `${p.file}: отправлен повторно как ${p.batchId}: в записи файла не было проверенного заявления об отправке`,
    en: (p) => `${p.file}: resubmitted as ${p.batchId}: the file's record had no verified submit statement`,
  }),
  'watch.settled': entry<{ file: string; batchId: string }>({
    ru: (p) => `${p.file}: ${p.batchId} завершён, файл и отчёт в done/`,
    en: (p) => `${p.file}: ${p.batchId} finished; the file and its report are in done/`,
  }),
  'watch.error': entry<{ file: string; message: string }>({
    ru: (p) => `${p.file}: не удалось отправить: ${p.message}`,
    en: (p) => `${p.file}: could not submit: ${p.message}`,
  }),
  /**
   * For `batch submit` (src/batch/commands/submit.ts describeError, src/cli/batch.ts): one validation
   * error, one line. `column` is the column's code; it is named in words, as the console's check page
   * names it, and the rule stays a code beside the words.
   */
  'cli.row_error': entry<{ row: number; column: string | null; message: string; rule: string }>({
    ru: (p) =>
      `строка ${p.row}${p.column ? `, столбец «${columnName(p.column, 'ru')}»` : ''}: ${p.message} (${p.rule})`,
    en: (p) =>
      `row ${p.row}${p.column ? `, column "${columnName(p.column, 'en')}"` : ''}: ${p.message} (${p.rule})`,
  }),
  'cli.rejected': entry<{ file: string; errors: number; rejectedPath: string }>({
    ru: (p) =>
      `${p.file} отклонён: ${plural(p.errors, ['ошибка', 'ошибки', 'ошибок'])}, ничего не выплачено; перемещён в ${p.rejectedPath}`,
    en: (p) => `${p.file} rejected: ${p.errors} error(s), nothing paid; moved to ${p.rejectedPath}`,
  }),
  /** For `payout status` (src/cli/payout.ts): the state first, with when it was reached. */
  'payout.state': entry<{ reference: string; state: string; at?: string }>({
    ru: (p) =>
      `выплата ${p.reference}: ${STATE[p.state]?.ru ?? p.state}${p.at ? `, ${moscowTime(p.at, 'ru')}` : ''}`,
    en: (p) => `payout ${p.reference}: ${p.state}${p.at ? `, ${moscowTime(p.at, 'en')}` : ''}`,
  }),
  'payout.needs_attention_terminated': entry<{ reference: string }>({
    ru: (p) =>
      `выплата ${p.reference} требует проверки: её процесс остановлен вручную, неизвестно, ушли ли деньги; выполните payrun payout reconcile ${p.reference}`,
    en: (p) =>
      `payout ${p.reference} needs attention: its workflow was terminated by hand and whether money moved is unknown; run payrun payout reconcile ${p.reference}`,
  }),
};
