/**
 * What `payrun batch submit` (with --dry-run, --follow) and `payrun batch retry-failed` print beside the
 * batch id and the dry run's answer: the accepted rows, who submitted, progress of the tax-number checks.
 */
import { entry, money, plural, pluralEn } from './lang';

const ROWS_RU = ['строка', 'строки', 'строк'] as const;

/** About how long is left: seconds below a minute, minutes below an hour, then hours and minutes. */
function etaIn(ms: number, lang: 'ru' | 'en'): string {
  const s = Math.ceil(ms / 1000);
  const [sec, min, h, about] = lang === 'ru' ? ['с', 'мин', 'ч', 'около'] : ['s', 'min', 'h', 'about'];
  if (s < 60) return `${about} ${s} ${sec}`;
  const m = Math.ceil(s / 60);
  if (m < 60) return `${about} ${m} ${min}`;
  return `${about} ${Math.floor(m / 60)} ${h} ${String(m % 60).padStart(2, '0')} ${min}`;
}

export const SUBMIT_MESSAGES = {
  'submit.accepted': entry<{ valid: number; total: number; invalid: number }>({
    ru: (p) => `к выплате ${plural(p.valid, ROWS_RU)} (${money(p.total)}), с ошибками ${p.invalid}`,
    en: (p) => `${pluralEn(p.valid, 'valid row', 'valid rows')} (${money(p.total)}), ${p.invalid} invalid`,
  }),
  'submit.by': entry<{ person: string; batchId: string }>({
    ru: (p) => `отправил(а) ${p.person}; ждёт ли пакет утверждения, покажет payrun batch status ${p.batchId}`,
    en: (p) =>
      `submitted by ${p.person}; payrun batch status ${p.batchId} says whether it waits for approval`,
  }),
  'submit.file_changed': entry<{ file: string }>({
    ru: (p) => `${p.file} изменился, пока его читали: ничего не сохранено; отправьте файл ещё раз`,
    en: (p) => `${p.file} changed while it was read: nothing was stored; submit it again`,
  }),
  'submit.already': entry<{ batchId: string; firstFile: string }>({
    ru: (p) => `${p.batchId}: уже отправлен (как ${p.firstFile}); дважды ничего не платится`,
    en: (p) => `${p.batchId}: already submitted (as ${p.firstFile}); nothing is paid twice`,
  }),
  /** A submit statement that would not verify in the worker: nothing is moved, stored or started. */
  'submit.refused.unknown': entry<{ person: string; where: string }>({
    ru: (p) => `пакет не отправлен: ${p.person} нет среди людей политики ${p.where}`,
    en: (p) => `the batch was not submitted: ${p.person} is not a person of the policy ${p.where}`,
  }),
  'submit.refused.revoked': entry<{ person: string; at: string }>({
    ru: (p) => `пакет не отправлен: права ${p.person} отозваны (${p.at})`,
    en: (p) => `the batch was not submitted: ${p.person} was revoked at ${p.at}`,
  }),
  'submit.refused.role': entry<{ person: string; roles: string }>({
    ru: (p) =>
      `пакет не отправлен: ${p.person} не может отправлять пакеты (роли: ${p.roles}; нужна preparer, service или admin)`,
    en: (p) =>
      `the batch was not submitted: ${p.person} may not submit (roles: ${p.roles}; needs preparer, service or admin)`,
  }),
  'submit.refused.key': entry<{ person: string; where: string }>({
    ru: (p) =>
      `пакет не отправлен: подпись не проверяется ни одним ключом ${p.person} из политики ${p.where} (не тот ключ?)`,
    en: (p) =>
      `the batch was not submitted: no key of ${p.person}'s in the policy ${p.where} verifies the signature (the wrong key?)`,
  }),
  'submit.refused.other': entry<{ person: string; reason: string }>({
    ru: (p) => `пакет не отправлен: заявление ${p.person} не проверяется (${p.reason})`,
    en: (p) => `the batch was not submitted: ${p.person}'s statement does not verify (${p.reason})`,
  }),
  /** The same file again, when its record had lost its verified submit statement. */
  'submit.resubmitted': entry<{ batchId: string; person: string }>({
    ru: (p) =>
      `${p.batchId}: отправлен повторно (${p.person}); заявление об отправке снова в записи файла, пакет можно одобрять`,
    en: (p) =>
      `${p.batchId}: resubmitted by ${p.person}; the file's record has a verified submit statement again and the batch can be approved`,
  }),
  /** After --follow: the counts by state (describeCounts), and the invalid rows, which were never paid. */
  'submit.followed': entry<{ counts: string; invalid: number }>({
    ru: (p) => `${p.counts}${p.invalid ? `, с ошибками ${p.invalid} (не выплачено)` : ''}`,
    en: (p) => `${p.counts}${p.invalid ? `, invalid ${p.invalid} (not paid)` : ''}`,
  }),
  'submit.report': entry<{ report: string }>({
    ru: (p) => `отчёт ${p.report}`,
    en: (p) => `report ${p.report}`,
  }),
  'submit.would_reject': entry<{ file: string }>({
    ru: (p) => `${p.file} будет отклонён`,
    en: (p) => `${p.file} would be rejected`,
  }),
  /** After commander's own words, which name the option and the value. */
  'submit.expect_total': entry({
    ru: () => 'ожидается сумма в рублях, например 14 234,46 или 14234.46',
    en: () => 'expected an amount in rubles, e.g. 14 234,46 or 14234.46',
  }),
  'retry.started': entry<{ rows: number; total: number; from: string }>({
    ru: (p) => `повторно к выплате ${plural(p.rows, ROWS_RU)} (${money(p.total)}) из пакета ${p.from}`,
    en: (p) => `${pluralEn(p.rows, 'row', 'rows')} (${money(p.total)}) retried from ${p.from}`,
  }),
  'retry.not_finished': entry<{ batchId: string }>({
    ru: (p) =>
      `пакет ${p.batchId} ещё не завершён; повторить его невыплаченные строки можно, когда он завершится`,
    en: (p) => `batch ${p.batchId} has not finished yet; retry its failed rows once it is done`,
  }),
  'retry.already_retried': entry<{ batchId: string; later: string }>({
    ru: (p) =>
      `пакет ${p.batchId} уже повторён как ${p.later}; повторите тот, когда он завершится (payrun batch retry-failed ${p.later})`,
    en: (p) =>
      `batch ${p.batchId} was already retried as ${p.later}; retry that one (payrun batch retry-failed ${p.later}) once it is done`,
  }),
  'retry.nothing': entry<{ batchId: string }>({
    ru: (p) =>
      `в пакете ${p.batchId} нет строк для повтора (не выплачено, отклонено, истекло, отменено, требует проверки)`,
    en: (p) =>
      `batch ${p.batchId} has no failed, rejected, expired, cancelled or needs_attention rows to retry`,
  }),
  /** `batch approve|reject` refusing before anything is signed. */
  'decision.not_in_store': entry<{ batchId: string; where: string }>({
    ru: (p) => `пакета ${p.batchId} нет в хранилище пакетов ${p.where}`,
    en: (p) => `batch ${p.batchId} is not in the batch store ${p.where}`,
  }),
  'decision.file_changed': entry<{ file: string; batchId: string }>({
    ru: (p) => `файл изменился после отправки: ${p.file} — не файл пакета ${p.batchId}`,
    en: (p) => `this file changed since it was submitted: ${p.file} is not the file of ${p.batchId}`,
  }),
  'decision.own_batch': entry<{ person: string }>({
    ru: (p) => `этот пакет отправили вы (как ${p.person}): утвердить его должен кто-то другой`,
    en: (p) => `you submitted this batch (as ${p.person}): an approver must be someone else`,
  }),
  /** The live bar's words (cli-progress fills {bar}, {value}, {total}, {phase}, {counts}). */
  'follow.bar': entry({
    ru: () => ' {bar} строки {value}/{total} | {phase} | {counts}',
    en: () => ' {bar} {value}/{total} rows | {phase} | {counts}',
  }),
  'dryrun.progress.bar': entry({
    ru: () => ' проверка ИНН {bar} {value}/{total} | {percentage} % | осталось {eta_formatted}',
    en: () => ' tax number checks {bar} {value}/{total} | {percentage}% | ETA {eta_formatted}',
  }),
  'dryrun.progress.start': entry<{ total: number }>({
    ru: (p) => `проверяю в банке ИНН: ${p.total}`,
    en: (p) => `checking ${pluralEn(p.total, 'tax number', 'tax numbers')} with the bank`,
  }),
  /** `leftMs` absent: the last check is done. */
  'dryrun.progress': entry<{ done: number; total: number; leftMs?: number }>({
    ru: (p) =>
      `проверено ${p.done} из ${p.total} ИНН (${Math.floor((p.done / p.total) * 100)} %)${p.leftMs !== undefined ? `, осталось ${etaIn(p.leftMs, 'ru')}` : ''}`,
    en: (p) =>
      `checked ${p.done} of ${pluralEn(p.total, 'tax number', 'tax numbers')} (${Math.floor((p.done / p.total) * 100)} %)${p.leftMs !== undefined ? `, ${etaIn(p.leftMs, 'en')} left` : ''}`,
  }),
};
