/**
 * What a batch or payout answers an operator's command (approve, reject, pause, resume, cancel) and why
 * it refuses one. The workflows answer in English words (their history keeps them as they were);
 * src/i18n/operator-answers.ts finds which answer it is and says it again from here.
 */
import { entry } from './lang';

type Who = { by: string };

export const ANSWER_MESSAGES = {
  'answer.batch_done': entry<{ decision: string }>({
    ru: (p) => `нечего ${p.decision === 'reject' ? 'отклонять' : 'одобрять'}: пакет завершён`,
    en: (p) => `nothing to ${p.decision}: the batch is done`,
  }),
  'answer.none_awaiting_cancelled': entry<Who>({
    ru: (p) => `одобрения ничто не ждёт: отменил ${p.by}`,
    en: (p) => `nothing is awaiting approval: cancelled by ${p.by}`,
  }),
  'answer.none_awaiting_allowed': entry<Who>({
    ru: (p) => `одобрения ничто не ждёт: выплата уже разрешена (${p.by})`,
    en: (p) => `nothing is awaiting approval: paying was allowed (${p.by})`,
  }),
  'answer.none_awaiting_ended': entry<{ state: string }>({
    ru: (p) => `одобрения ничто не ждёт: выплата завершилась (${p.state})`,
    en: (p) => `nothing is awaiting approval: the payout ended ${p.state}`,
  }),
  'answer.approval_not_required': entry<{ what: string }>({
    ru: (p) => `${p.what === 'batch' ? 'этот пакет' : 'эта выплата'} не требует одобрения`,
    en: (p) => `approval is not required for this ${p.what}`,
  }),
  'answer.refused': entry<{ reason: string }>({
    ru: (p) => `отказано: ${p.reason}`,
    en: (p) => `refused: ${p.reason}`,
  }),
  'answer.rejected': entry<Who & { reason?: string }>({
    ru: (p) =>
      `отклонено (${p.by}${p.reason ? `: ${p.reason}` : ''}); этот файл не выплатит ни один пакет, пока его снова не одобрят`,
    en: (p) =>
      `rejected by ${p.by}${p.reason ? `: ${p.reason}` : ''}; this file is not paid by any batch until it is approved again`,
  }),
  'answer.approved': entry<Who & { count: string; of: string; enough: boolean }>({
    ru: (p) =>
      `одобрено (${p.by}, ${p.count} из ${p.of}): ${p.enough ? 'выплата может начаться' : 'нужно одобрение ещё одного человека'}`,
    en: (p) =>
      `approved by ${p.by} (${p.count} of ${p.of}): ${p.enough ? 'paying may start' : 'waiting for another approver'}`,
  }),
  'answer.already_approved': entry<Who>({
    ru: (p) => `уже одобрено (${p.by})`,
    en: (p) => `already approved by ${p.by}`,
  }),
  'answer.payout_approved': entry<{ waits: boolean }>({
    ru: (p) => (p.waits ? 'одобрено; выплата будет подтверждена, когда банк будет готов' : 'одобрено'),
    en: (p) => (p.waits ? 'approved; it is confirmed when the bank is ready' : 'approved'),
  }),
  'answer.nothing_to_pause': entry<{ phase: string }>({
    ru: (p) => `нечего приостанавливать: пакет ${p.phase}`,
    en: (p) => `nothing to pause: the batch is ${p.phase}`,
  }),
  'answer.already_paused': entry({ ru: () => 'уже приостановлен', en: () => 'already paused' }),
  'answer.paused': entry({
    ru: () => 'приостановлен: новые выплаты не начинаются, начатые завершатся',
    en: () => 'paused: no new payouts start; those in flight finish',
  }),
  'answer.not_paused': entry<{ phase: string }>({
    ru: (p) => `не приостановлен (пакет ${p.phase})`,
    en: (p) => `not paused (the batch is ${p.phase})`,
  }),
  'answer.resumed': entry({ ru: () => 'возобновлён', en: () => 'resumed' }),
  'answer.nothing_to_cancel': entry<{ what: string; state?: string }>({
    ru: (p) =>
      `нечего отменять: ${p.what === 'batch' ? 'пакет завершён' : `выплата завершилась (${p.state})`}`,
    en: (p) =>
      `nothing to cancel: ${p.what === 'batch' ? 'the batch is done' : `the payout ended ${p.state}`}`,
  }),
  'answer.already_cancelled': entry<Who>({
    ru: (p) => `уже отменено (${p.by})`,
    en: (p) => `already cancelled by ${p.by}`,
  }),
  'answer.cancelling': entry({
    ru: () => 'отменяется: новые выплаты не начинаются, начатые отменяются, где банк ещё позволяет',
    en: () => 'cancelling: no new payouts start; those in flight are cancelled where the bank still allows',
  }),
  'answer.too_late_to_cancel': entry<{ state: string }>({
    ru: (p) => `отменить уже нельзя: выплата подтверждена (${p.state})`,
    en: (p) => `too late to cancel: the payout was confirmed (${p.state})`,
  }),
  'answer.confirm_under_way': entry({
    ru: () => 'отменить сейчас нельзя: подтверждение, возможно, уже отправлено; спросите ещё раз',
    en: () => 'too late to cancel: the confirm may be under way; ask again to see',
  }),
  'answer.cancel_requested': entry({
    ru: () => 'отмена принята: выплата будет отменена до того, как деньги уйдут',
    en: () => 'cancel requested: the payout is cancelled before any money moves',
  }),
  'answer.self_approval': entry<Who>({
    ru: (p) => `${p.by} отправил(а) этот пакет: одобрить его должен другой человек`,
    en: (p) => `${p.by} submitted this batch: an approver must be someone else`,
  }),
  'answer.approved_twice': entry<Who>({
    ru: (p) => `${p.by} уже одобрил(а) этот пакет`,
    en: (p) => `${p.by} has already approved this batch`,
  }),
  'answer.no_submitter': entry({
    ru: () =>
      'в записи файла нет проверенного заявления об отправке: отправьте файл повторно (payrun batch submit), тогда его можно будет одобрить',
    en: () => "the file's record has no verified submit statement: resubmit it",
  }),
  'answer.signed_long_ago': entry<{ at: string }>({
    ru: (p) => `одобрение подписано в ${p.at}, больше 5 минут назад: подпишите его заново`,
    en: (p) => `it was signed at ${p.at}, more than 5 minutes ago: sign it again`,
  }),
  'answer.dated_before_own': entry<Who & { batchId: string; at: string; own: string }>({
    ru: (p) =>
      `${p.by} одобрил(а) пакет ${p.batchId} в ${p.at}, позже времени этого одобрения (${p.own}): подпишите его заново`,
    en: (p) =>
      `${p.by} approved batch ${p.batchId} at ${p.at}, after this approval's time ${p.own}: sign it again`,
  }),
};
