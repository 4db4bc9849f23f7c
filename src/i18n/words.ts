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

  // ─── The audit trail (src/batch/commands/audit.ts: console batch page, `payrun batch audit`) ─────────
  'audit.signer.passkey': entry<{ person: string }>({
    ru: (p) => `ключ доступа (passkey) ${p.person}`,
    en: (p) => `${p.person}'s passkey`,
  }),
  'audit.signer.via': entry<{ person: string; via: string }>({
    ru: (p) => `${p.via} подписывает за ${p.person}`,
    en: (p) => `${p.via} signing for ${p.person}`,
  }),
  'audit.signer.own': entry<{ person: string }>({
    ru: (p) => `собственный ключ ${p.person}`,
    en: (p) => `${p.person}'s own key`,
  }),
  'audit.unchecked': entry({
    ru: () => 'подписано; здесь не проверялось (не задан PAYRUN_POLICY_FILE)',
    en: () => 'signed; not checked here (PAYRUN_POLICY_FILE is not set)',
  }),
  'audit.checked': entry<{ signer: string; version: string | number }>({
    ru: (p) => `подпись проверена: ${p.signer}, правила версии ${p.version}`,
    en: (p) => `signature checked: ${p.signer}, policy ${p.version}`,
  }),
  'audit.not_counted': entry<{ reason: string }>({
    ru: (p) => `сейчас не засчитывается: ${p.reason}`,
    en: (p) => `does not count now: ${p.reason}`,
  }),
  'audit.via_source': entry<{ source: string }>({
    ru: (p) =>
      `через ${{ inbox: 'папку входящих', console: 'консоль', cli: 'командную строку' }[p.source] ?? p.source}`,
    en: (p) => `via ${p.source}`,
  }),
  'audit.judged': entry({
    ru: () => 'пакет проверил запись своего файла по правилам воркера',
    en: () => 'the batch judged its file’s record under the worker’s policy',
  }),
  'audit.named': entry({
    ru: () => 'имя, как его назвал вызвавший (не доказано)',
    en: () => 'a name as the caller gave it (not proven)',
  }),
  'audit.nobody_needed': entry<{ why: string }>({
    ru: (p) => `утверждение не требовалось: ${p.why}`,
    en: (p) => `nobody needed: ${p.why}`,
  }),
  /** One `payrun batch audit` line. */
  'audit.line': entry<{
    at: string;
    batchId: string;
    what: string;
    by: string;
    evidence: string;
    note?: string;
  }>({
    ru: (p) => `${p.at} ${p.batchId} ${p.what}: ${p.by}; ${p.evidence}${p.note ? ` — ${p.note}` : ''}`,
    en: (p) => `${p.at} ${p.batchId} ${p.what} by ${p.by}: ${p.evidence}${p.note ? ` — ${p.note}` : ''}`,
  }),
  'audit.what': entry<{ what: string }>({
    ru: (p) =>
      ({
        submit: 'отправлен',
        approve: 'утверждён',
        reject: 'отклонён',
        pause: 'приостановлен',
        resume: 'возобновлён',
        cancel: 'отменён',
        paying: 'выплата разрешена',
      })[p.what] ?? p.what,
    en: (p) =>
      ({
        submit: 'submitted',
        approve: 'approved',
        reject: 'rejected',
        pause: 'paused',
        resume: 'resumed',
        cancel: 'cancelled',
        paying: 'paying allowed',
      })[p.what] ?? p.what,
  }),

  // ─── The bank's reasons (src/i18n/row-reasons.ts: report, batch status, batch and payout pages) ─────
  /** payrun's explanation of a bank code; the bank's own words follow, quoted and labelled. */
  'bank.code': entry<{ code: string }>({
    ru: (p) =>
      ({
        declined_by_issuer_bank: 'банк получателя отклонил выплату',
        recipient_not_found: 'получатель не найден в СБП',
        cancelled_by_partner: 'выплата отменена партнёром',
        confirm_timeout: 'выплата не подтверждена вовремя',
        insufficient_funds: 'на депозите не хватило денег',
        invalid_request: 'банк не принял запрос',
        unknown_error: 'банк сообщил, что выплата не прошла',
      })[p.code] ?? 'банк отказал',
    en: (p) =>
      ({
        declined_by_issuer_bank: "the recipient's bank declined the payout",
        recipient_not_found: 'the recipient is not registered in the FPS',
        cancelled_by_partner: 'the payout was cancelled by the partner',
        confirm_timeout: 'the payout was not confirmed in time',
        insufficient_funds: 'the deposit did not hold enough',
        invalid_request: 'the bank did not accept the request',
        unknown_error: 'the bank reported the payout failed',
      })[p.code] ?? 'the bank refused',
  }),
  'bank.refused_create': entry<{ code: string }>({
    ru: (p) => `банк не создал выплату (${p.code})`,
    en: (p) => `the bank refused to create the payout (${p.code})`,
  }),
  /** The bank's own words, quoted: payrun never translates them (the language test sets them apart). */
  'bank.words': entry<{ words: string }>({
    ru: (p) => `Слова банка: "${p.words.replace(/"/g, "'")}"`,
    en: (p) => `The bank's words: "${p.words.replace(/"/g, "'")}"`,
  }),
  'payout.confirm_window_closed': entry({
    ru: () => 'четырёхчасовое окно подтверждения в банке закрылось',
    en: () => 'the bank’s 4-hour confirm window had closed',
  }),
  'payout.cancelled_by': entry<{ by: string }>({
    ru: (p) => `отменено: ${p.by}`,
    en: (p) => `cancelled by ${p.by}`,
  }),
  // ─── A payout's status (src/cli/payout.ts `payout status`, the console's payout page) ─────────────────
  /** A timeline step (the workflow's timestamps key) in words. */
  'timeline.step': entry<{ key: string }>({
    ru: (p) =>
      ({
        started: 'выплата начата',
        sessionCreated: 'сессия создана в банке',
        readyToConfirm: 'банк готов к подтверждению',
        confirmed: 'выплата подтверждена',
        credited: 'деньги зачислены',
        finished: 'выплата завершена',
        returned: 'деньги возвращены',
      })[p.key] ?? p.key,
    en: (p) =>
      ({
        started: 'payout started',
        sessionCreated: 'session created at the bank',
        readyToConfirm: 'the bank is ready to confirm',
        confirmed: 'payout confirmed',
        credited: 'money credited',
        finished: 'payout finished',
        returned: 'money returned',
      })[p.key] ?? p.key,
  }),
  'payoutStatus.head': entry<{ reference: string; state: string; amount: number; batchId?: string }>({
    ru: (p) => `${p.reference}: ${p.state}, ${money(p.amount)}${p.batchId ? `, пакет ${p.batchId}` : ''}`,
    en: (p) => `${p.reference}: ${p.state}, ${money(p.amount)}${p.batchId ? `, batch ${p.batchId}` : ''}`,
  }),
  'payoutStatus.bank': entry<{ sessionId: string; payoutId?: string }>({
    ru: (p) => `сессия в банке ${p.sessionId}${p.payoutId ? `, выплата в банке ${p.payoutId}` : ''}`,
    en: (p) => `bank session ${p.sessionId}${p.payoutId ? `, payout ${p.payoutId}` : ''}`,
  }),
  'payoutStatus.receipt': entry<{ link: string }>({
    ru: (p) => `чек ${p.link}`,
    en: (p) => `receipt ${p.link}`,
  }),
  'payoutStatus.failure': entry<{ why: string }>({
    ru: (p) => `почему не выплачено: ${p.why}`,
    en: (p) => `why not paid: ${p.why}`,
  }),
  'payoutStatus.step': entry<{ at: string; step: string }>({
    ru: (p) => `  ${p.at} ${p.step}`,
    en: (p) => `  ${p.at} ${p.step}`,
  }),
  'payoutStatus.notes': entry<{ count: number; workflowId: string }>({
    ru: (p) => `  технических заметок процесса: ${p.count} (на английском, в Temporal UI: ${p.workflowId})`,
    en: (p) => `  workflow notes: ${p.count} (in the Temporal UI: ${p.workflowId})`,
  }),
  'payoutStatus.closed': entry<{ paid: boolean }>({
    ru: (p) => (p.paid ? 'оплачена' : 'закрыта без оплаты: референс можно оплатить снова'),
    en: (p) => (p.paid ? 'paid' : 'closed, not paid: the reference may be paid again'),
  }),
  'payoutStatus.attention': entry<{ reference: string; reason: string }>({
    ru: (p) => `${p.reference}: требует внимания: ${p.reason}`,
    en: (p) => `${p.reference}: needs attention: ${p.reason}`,
  }),
  'payoutStatus.last_known': entry<{ line: string }>({
    ru: (p) => `последнее известное: ${p.line}`,
    en: (p) => `last known: ${p.line}`,
  }),
  'payoutStatus.none': entry<{ reference: string }>({
    ru: (p) => `выплаты с референсом ${p.reference} нет`,
    en: (p) => `no payout with reference ${p.reference}`,
  }),
  // ─── Refusals (workflows/shared/approval.ts checkStatement, src/cli/operator.ts) ─────────────────────
  'refusal.role': entry<{ person: string; act: string; roles: string; needs: string }>({
    ru: (p) => `${p.person} не может ${p.act} (роли: ${p.roles}; нужна роль: ${p.needs})`,
    en: (p) => `${p.person} may not ${p.act} (roles: ${p.roles}; needs ${p.needs})`,
  }),
  'refusal.not_in_policy': entry<{ person: string }>({
    ru: (p) => `${p.person} нет среди людей в файле правил`,
    en: (p) => `${p.person} is not a person of the policy`,
  }),
  'refusal.revoked': entry<{ person: string; at: string }>({
    ru: (p) => `${p.person} отозван(а) ${p.at}`,
    en: (p) => `${p.person} was revoked at ${p.at}`,
  }),
  'refusal.worker_policy': entry<{ reason: string; version: string }>({
    ru: (p) => `${p.reason} (правила воркера, версия ${p.version})`,
    en: (p) => `${p.reason} (the worker's policy ${p.version})`,
  }),
  'refusal.resolve_own_key': entry<{ person: string; via: string }>({
    ru: (p) => `${p.person}: закрывайте расхождение своим ключом, не через ${p.via}`,
    en: (p) => `${p.person}: resolve a difference with your own key, not through ${p.via}`,
  }),
  'refusal.resolve_too_old': entry<{ at: string }>({
    ru: (p) => `заявление подписано ${p.at}, больше 15 минут назад: подпишите его снова`,
    en: (p) => `the statement was signed at ${p.at}, more than 15 minutes ago: sign it again`,
  }),
  /** The worker's refusals of a resolution whose difference is not open (src/reconcile/day.ts). */
  'refusal.no_difference': entry<{ key: string; account: string }>({
    ru: (p) =>
      `на счёте ${p.account} нет расхождения ${p.key} (список открытых покажет payrun reconcile status)`,
    en: (p) => `no difference ${p.key} on account ${p.account} (payrun reconcile status lists them)`,
  }),
  'refusal.difference_closed': entry<{ key: string; state: string }>({
    ru: (p) =>
      `расхождение ${p.key} уже ${{ resolved: 'закрыто', matched: 'сопоставлено с выпиской' }[p.state] ?? 'не открыто'}`,
    en: (p) => `difference ${p.key} is already ${p.state}`,
  }),
  'cli.no_report_yet': entry<{ batchId: string }>({
    ru: (p) => `у пакета ${p.batchId} ещё нет отчёта (почему — покажет payrun batch status ${p.batchId})`,
    en: (p) => `batch ${p.batchId} has no report yet (payrun batch status ${p.batchId} shows why)`,
  }),
  /** The watcher's `<file>.errors.txt` for a file already paid by a batch (src/batch/commands/submit.ts). */
  'errors.already_submitted': entry<{ batchId: string }>({
    ru: (p) => `этот файл уже отправлен как ${p.batchId}; дважды не платится`,
    en: (p) => `already submitted as ${p.batchId}; nothing is paid twice`,
  }),
  /** Command-line values refused before anything runs (src/cli): commander names the option and the value. */
  'usage.whole_number': entry<{ min: number; max: number }>({
    ru: (p) => `нужно целое число от ${p.min} до ${p.max}`,
    en: (p) => `expected a whole number from ${p.min} to ${p.max}`,
  }),
  'usage.rubles': entry<{ why: string }>({
    ru: (p) => `нужна сумма в рублях, например 1 234,56 (${p.why})`,
    en: (p) => `expected rubles like "1 234,56" (${p.why})`,
  }),
  'usage.day': entry({
    ru: () => 'нужна дата ГГГГ-ММ-ДД, например 2026-11-23',
    en: () => 'expected a date YYYY-MM-DD, like 2026-11-23',
  }),
  'usage.moscow_time': entry({
    ru: () => 'нужно московское время ЧЧ:ММ, например 06:00',
    en: () => 'expected a Moscow time HH:MM, like 06:00',
  }),
  'usage.account': entry({
    ru: () => 'нужен номер счёта из 20 цифр',
    en: () => 'expected a 20-digit account number',
  }),
  'usage.address_length': entry<{ max: number; length: number }>({
    ru: (p) => `не длиннее ${p.max} символов, а здесь ${p.length}`,
    en: (p) => `expected at most ${p.max} characters, not ${p.length}`,
  }),
  'usage.http_address': entry({
    ru: () => 'нужен адрес http(s), например https://accounting.example/linked',
    en: () => 'expected an http(s) address, e.g. https://accounting.example/linked',
  }),
  'cli.command_refused': entry<{ what: string; reason: string }>({
    ru: (p) => `команда ${p.what} отклонена: ${p.reason}`,
    en: (p) => `${p.what} refused: ${p.reason}`,
  }),
  /**
   * A ConfigError's heading as the command line prints it (src/cli/index.ts). Its problems stay as each
   * names its variable; the ones a person meets in a documented flow are already in the language set.
   */
  'cli.config_invalid': entry<{ problems: string[] }>({
    ru: (p) => `неверные настройки:\n${p.problems.map((x) => `  - ${x}`).join('\n')}`,
    en: (p) => `invalid configuration:\n${p.problems.map((x) => `  - ${x}`).join('\n')}`,
  }),
  'cli.no_workflow': entry<{ workflowId: string }>({
    ru: (p) => `нет работающего процесса ${p.workflowId} (возможно, он уже завершён)`,
    en: (p) => `no running workflow ${p.workflowId} (it may have finished)`,
  }),
};

/** A role in a refusal, in words (the codes stay in the policy file). */
export const ROLE_WORDS: Record<string, { ru: string; en: string }> = {
  preparer: { ru: 'подготовитель', en: 'preparer' },
  approver: { ru: 'утверждающий', en: 'approver' },
  viewer: { ru: 'наблюдатель', en: 'viewer' },
  admin: { ru: 'администратор', en: 'admin' },
  service: { ru: 'служба', en: 'service' },
  authenticator: { ru: 'служба входа', en: 'authenticator' },
  none: { ru: 'нет', en: 'none' },
};
/** What a refused person tried, in Russian (an infinitive after «не может»). */
export const ACT_WORDS_RU: Record<string, string> = {
  submit: 'отправлять файлы',
  approve: 'утверждать',
  reject: 'отклонять',
  resolve: 'закрывать расхождения сверки',
};
