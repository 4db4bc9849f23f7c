/**
 * A row outcome's reason as the report shows it, in the language set. The workflows write their
 * reasons in English words and stable codes; those payrun itself words are said again from the
 * message catalogue (a reference conflict's amounts in roubles, not kopecks), the bank's own texts are
 * shown as the bank gave them.
 */
import { t, type Lang, currentLang, money } from '../i18n';
import type { BatchFailure, BatchRowOutcome } from '../../workflows/batch/contract';

/** The workflows' names of what differs between two payouts of one reference (workflows/shared/reference.ts). */
const DIFFERENCE_RU: Record<string, string> = {
  'recipient tax number (INN)': 'ИНН получателя',
  'card number': 'номер карты',
  'bank account (BIK or account number)': 'банковский счёт (БИК или номер счёта)',
  'FPS phone or bank': 'телефон или банк СБП',
  'payee (the earlier payout does not record it)': 'получатель (прежняя выплата его не записала)',
};

/** "amount (150000 vs 15000000 kopecks)": the earlier and the requested amount. */
const AMOUNT_IN_KOPECKS = /amount \((\d+) vs (\d+) kopecks\)/;

/** The workflows' list of what differs ("amount (… kopecks), card number"), in the language set, amounts in roubles. */
export function differencesText(text: string, lang: Lang = currentLang()): string {
  return text
    .split(', ')
    .map((d) => {
      const amount = AMOUNT_IN_KOPECKS.exec(d);
      if (amount)
        return t(
          'report.reference_conflict_amount',
          { then: Number(amount[1]), now: Number(amount[2]) },
          lang,
        );
      const method = /^payment method \((\w+) vs (\w+)\)$/.exec(d);
      if (method && lang === 'ru') return `способ выплаты (был ${method[1]}, в файле ${method[2]})`;
      return lang === 'ru' ? (DIFFERENCE_RU[d] ?? d) : d;
    })
    .join(', ');
}

/** Who paid a reference before, from the workflows' "by batch X" / "by a payout … outside any batch". */
function paidBy(reason: string): string | null {
  return /by batch (batch-[0-9a-f]{16}(?:-retry-\d+)?)/.exec(reason)?.[1] ?? null;
}

/** How a payout's run ended, as lookup.ts words it (Temporal's close status, in lower case). */
const RUN_ENDED_RU: Record<string, string> = {
  terminated: 'остановлен принудительно',
  timed_out: 'превысил свой срок',
  failed: 'завершился сбоем',
  canceled: 'отменён',
  continued_as_new: 'продолжен новым запуском',
};
/** Why a closed run provably moved no money (src/batch/services/run-history.ts). */
const MOVED_NOTHING_RU: Record<string, string> = {
  'it closed before any worker ran it (no workflow task started)':
    'он закрылся прежде, чем его начал выполнять обработчик',
  'it closed before its first workflow task completed (no command, so no confirm, was ever issued)':
    'он закрылся, не выполнив ни одного шага (ни одной команды, а значит и подтверждения банку)',
  'it never asked the bank to move money (no such activity recorded)':
    'он ни разу не просил банк перевести деньги (в его истории такого действия нет)',
  'it refused its input (invalid_input) before any activity': 'он отверг свои входные данные (invalid_input)',
};

/**
 * A payout look-up's reason (src/batch/services/lookup.ts: a run that moved nothing, one whose status
 * cannot be replayed, one that ended without a clean outcome) in the language set; undefined for a
 * reason of another shape. `payrun payout status`, the console's payout page and the batch's rows.
 */
export function lookupReasonText(reason: string, lang: Lang = currentLang()): string | undefined {
  const how = (h: string) => (lang === 'ru' ? (RUN_ENDED_RU[h] ?? h) : h);
  const moved = /^the run ended (\w+) and (.+): no money moved; it may be paid again$/s.exec(reason);
  if (moved)
    return t(
      'lookup.moved_nothing',
      { how: how(moved[1]!), why: lang === 'ru' ? (MOVED_NOTHING_RU[moved[2]!] ?? moved[2]!) : moved[2]! },
      lang,
    );
  const lost = /^the run ended (\w+) and its status cannot be replayed; its bank session is (\S+)$/.exec(
    reason,
  );
  if (lost) return t('lookup.unreplayable', { how: how(lost[1]!), session: lost[2]! }, lang);
  const unclean =
    /^the payout workflow (\S+) ended (\w+) without a clean outcome; run `payrun payout reconcile (\S+)` to ask the bank$/.exec(
      reason,
    );
  if (unclean)
    return t(
      'lookup.unclean',
      { workflowId: unclean[1]!, how: how(unclean[2]!), reference: unclean[3]! },
      lang,
    );
  return undefined;
}

export function outcomeReason(o: BatchRowOutcome, lang: Lang = currentLang()): string | undefined {
  const { reason } = o;
  // payrun's own words about a closed run, never the bank's (a moved_nothing row is `failed`).
  const looked = reason ? lookupReasonText(reason, lang) : undefined;
  if (looked) return looked;
  if (o.errorCode === 'batch_cancelled') return t('report.batch_cancelled', {}, lang);
  if (o.errorCode === 'not_self_employed') return t('taxpayer.not_self_employed', {}, lang);
  if (o.errorCode === 'not_linked') return t('taxpayer.not_linked', {}, lang);
  // A scheduled row that woke (activities/scheduled.ts): the stop-list or the deposit changed meanwhile.
  if (o.errorCode === 'stop_list') return t('schedule.woke_stop_list', {}, lang);
  const short = o.errorCode === 'deposit_short' && /held (\d+) kopecks.* (\d+) kopecks/.exec(reason ?? '');
  if (short) return t('schedule.woke_short', { balance: Number(short[1]), amount: Number(short[2]) }, lang);
  if (!reason) return reason;
  if (o.state === 'reference_conflict') {
    const differs = /\(differs: (.*)\)/.exec(reason)?.[1];
    if (differs !== undefined)
      return t(
        'reference.conflict',
        { by: paidBy(reason), differences: differencesText(differs, lang) },
        lang,
      );
  }
  if (o.state === 'already_paid' && /^already paid by /.test(reason))
    return t('reference.already_paid', { by: paidBy(reason) }, lang);
  const limit = limitExceeded(reason);
  if (o.state === 'limit_exceeded' && limit) return t('recipient.limit', limit, lang);
  const taxService = /^the tax service check did not complete \((.+)\)$/.exec(reason);
  if (taxService) return t('taxpayer.error', { code: taxService[1]! }, lang);
  const bank = bankReason(o, reason, lang);
  if (bank) return bank;
  // Any amount still in kopecks is said in roubles.
  return reason.replace(/(\d+) kopecks/g, (_, k: string) => money(Number(k)));
}

/** A failure the batch keeps for its status (batch status, the console's batch page), in the language set. */
export function failureReason(f: BatchFailure, lang: Lang = currentLang()): string | undefined {
  return outcomeReason({ ...f, amount: 0, ...(f.code ? { errorCode: f.code } : {}) }, lang);
}

/** The limits as activities/payout-runs.ts words a refused reservation. */
const LIMIT_EXCEEDED =
  /^([\d ]+,\d\d) ₽ would pass (?:the self-employed income cap for (\d{4}),|the (per-payout|monthly) limit of) ([\d ]+,\d\d) ₽: ([\d ]+,\d\d) ₽ left; nothing was sent to the bank$/;

/** A limit_exceeded reason's figures, to say again in the language set (the dry run's words for it). */
export function limitExceeded(reason: string) {
  const m = LIMIT_EXCEEDED.exec(reason);
  if (!m) return undefined;
  const kopecks = (text: string) => Number(text.replace(/\D/g, ''));
  const limit = m[2] ? 'yearly_cap' : m[3] === 'per-payout' ? 'per_payout' : 'per_month';
  return {
    limit,
    amount: kopecks(m[1]!),
    year: Number(m[2] ?? 0),
    limitKopecks: kopecks(m[4]!),
    leftKopecks: kopecks(m[5]!),
  };
}

/**
 * A payout the bank failed, in payrun's words for its code beside the bank's own, quoted and labelled
 * (never translated: they are the bank's). Undefined for reasons that are not the bank's.
 */
function bankReason(o: BatchRowOutcome, reason: string, lang: Lang): string | undefined {
  if (o.state === 'expired' && reason === 'the bank’s 4-hour confirm window had closed')
    return t('payout.confirm_window_closed', {}, lang);
  const cancelledBy = /^cancelled by (.+)$/.exec(reason);
  if (o.state === 'cancelled' && cancelledBy) return t('payout.cancelled_by', { by: cancelledBy[1]! }, lang);
  if (o.state !== 'failed') return undefined;
  const code = o.errorCode ?? 'unknown_error';
  const created = /^the bank refused the payout: (.*)$/s.exec(reason);
  if (created)
    return `${t('bank.refused_create', { code }, lang)}. ${t('bank.words', { words: created[1]! }, lang)}`;
  if (reason === 'the bank reported the payout failed') return t('bank.code', { code }, lang);
  return `${t('bank.code', { code }, lang)}. ${t('bank.words', { words: reason }, lang)}`;
}

/** A payout's failure (its status's code and reason) as the report would say it, in the language set. */
export function payoutFailureText(
  s: { state: string; failure?: { code: string; reason: string } },
  lang: Lang = currentLang(),
): string {
  if (!s.failure) return '';
  return (
    outcomeReason(
      { state: s.state, errorCode: s.failure.code, reason: s.failure.reason } as BatchRowOutcome,
      lang,
    ) ?? s.failure.code
  );
}
