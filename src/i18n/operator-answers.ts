/**
 * A batch's or payout's answer to an operator's command, in the language set. The workflows answer in
 * English words (workflows/batch/run.ts, workflows/payout/run-state.ts, and their validators' refusals in
 * workflows/shared/approval.ts); each shape is found here and said again from the catalogue. An answer of
 * another shape is shown as it was given.
 */
import { currentLang, t, type Lang } from './';
import { PASSKEY_REASONS_RU } from './passkeys';
import { ACT_WORDS_RU, ROLE_WORDS } from './words';

type Say = (m: RegExpExecArray, lang: Lang) => string;

const roleList = (list: string, sep: RegExp, l: Lang, join: string) =>
  list
    .split(sep)
    .map((r) => ROLE_WORDS[r]?.[l] ?? r)
    .join(join);

const SHAPES: [RegExp, Say][] = [
  [
    /^(\S+) may not (\w+) \(roles: (.*); needs (.+)\)$/,
    (m, l) =>
      t(
        'refusal.role',
        {
          person: m[1]!,
          act: l === 'ru' ? (ACT_WORDS_RU[m[2]!] ?? m[2]!) : m[2]!,
          roles: roleList(m[3]!, /, /, l, ', '),
          needs: roleList(m[4]!, / or /, l, l === 'ru' ? ' или ' : ' or '),
        },
        l,
      ),
  ],
  [
    /^(.+) \(the worker's policy (\S+)\)$/s,
    (m, l) => t('refusal.worker_policy', { reason: commandAnswer(m[1]!, l), version: m[2]! }, l),
  ],
  [
    /^(\S+): resolve a difference with your own key, not through (.+)$/,
    (m, l) => t('refusal.resolve_own_key', { person: m[1]!, via: m[2]! }, l),
  ],
  [
    /^no difference (\S+) on account (\d+) \(payrun reconcile status lists them\)$/,
    (m, l) => t('refusal.no_difference', { key: m[1]!, account: m[2]! }, l),
  ],
  [
    /^difference (\S+) is already (\w+)$/,
    (m, l) => t('refusal.difference_closed', { key: m[1]!, state: m[2]! }, l),
  ],
  [/^--reason: say why the difference is resolved$/, (_, l) => t('reconcile.resolve.noReason', {}, l)],
  [
    /^the statement was signed at (\S+), more than 15 minutes ago: sign it again$/,
    (m, l) => t('refusal.resolve_too_old', { at: m[1]! }, l),
  ],
  [/^(\S+) is not a person of the policy$/, (m, l) => t('refusal.not_in_policy', { person: m[1]! }, l)],
  [/^(\S+) was revoked at (\S+)$/, (m, l) => t('refusal.revoked', { person: m[1]!, at: m[2]! }, l)],
  [
    /^nothing to (approve|reject): the batch is done$/,
    (m, l) => t('answer.batch_done', { decision: m[1]! }, l),
  ],
  [
    /^nothing is awaiting approval: cancelled by (.+)$/,
    (m, l) => t('answer.none_awaiting_cancelled', { by: m[1]! }, l),
  ],
  [
    /^nothing is awaiting approval: paying was allowed \((.+)\)$/,
    (m, l) => t('answer.none_awaiting_allowed', { by: m[1]! }, l),
  ],
  [
    /^nothing is awaiting approval: the payout ended (\w+)$/,
    (m, l) => t('answer.none_awaiting_ended', { state: t('state.name', { state: m[1]! }, l) }, l),
  ],
  [
    /^approval is not required for this (batch|payout)$/,
    (m, l) => t('answer.approval_not_required', { what: m[1]! }, l),
  ],
  [/^refused: (.+)$/s, (m, l) => t('answer.refused', { reason: commandAnswer(m[1]!, l) }, l)],
  [
    /^rejected by ([^:;]+)(?:: (.*))?; this file is not paid by any batch until it is approved again$/s,
    (m, l) => t('answer.rejected', { by: m[1]!, ...(m[2] ? { reason: m[2] } : {}) }, l),
  ],
  [
    /^approved by (.+) \((\d+) of (\d+)\): (paying may start|waiting for another approver)$/,
    (m, l) =>
      t('answer.approved', { by: m[1]!, count: m[2]!, of: m[3]!, enough: m[4] === 'paying may start' }, l),
  ],
  [/^already approved by (.+)$/, (m, l) => t('answer.already_approved', { by: m[1]! }, l)],
  [/^approved$/, (_, l) => t('answer.payout_approved', { waits: false }, l)],
  [
    /^approved; it is confirmed when the bank is ready$/,
    (_, l) => t('answer.payout_approved', { waits: true }, l),
  ],
  [
    /^nothing to pause: the batch is (\w+)$/,
    (m, l) => t('answer.nothing_to_pause', { phase: t('batch.phase', { phase: m[1]! }, l) }, l),
  ],
  [/^already paused$/, (_, l) => t('answer.already_paused', {}, l)],
  [/^paused: no new payouts start; those in flight finish$/, (_, l) => t('answer.paused', {}, l)],
  [
    /^not paused \(the batch is (\w+)\)$/,
    (m, l) => t('answer.not_paused', { phase: t('batch.phase', { phase: m[1]! }, l) }, l),
  ],
  [/^resumed$/, (_, l) => t('answer.resumed', {}, l)],
  [/^nothing to cancel: the batch is done$/, (_, l) => t('answer.nothing_to_cancel', { what: 'batch' }, l)],
  [
    /^nothing to cancel: the payout ended (\w+)$/,
    (m, l) =>
      t('answer.nothing_to_cancel', { what: 'payout', state: t('state.name', { state: m[1]! }, l) }, l),
  ],
  [/^already cancelled by (.+)$/, (m, l) => t('answer.already_cancelled', { by: m[1]! }, l)],
  [
    /^cancelling: no new payouts start; those in flight are cancelled where the bank still allows$/,
    (_, l) => t('answer.cancelling', {}, l),
  ],
  [
    /^too late to cancel: the payout was confirmed \((\w+)\)$/,
    (m, l) => t('answer.too_late_to_cancel', { state: t('state.name', { state: m[1]! }, l) }, l),
  ],
  [
    /^too late to cancel: the confirm may be under way; ask again to see$/,
    (_, l) => t('answer.confirm_under_way', {}, l),
  ],
  [
    /^cancel requested: the payout is cancelled before any money moves$/,
    (_, l) => t('answer.cancel_requested', {}, l),
  ],
  [
    /^(.+) submitted this batch: an approver must be someone else$/,
    (m, l) => t('answer.self_approval', { by: m[1]! }, l),
  ],
  [/^(.+) has already approved this batch$/, (m, l) => t('answer.approved_twice', { by: m[1]! }, l)],
  [
    /^signed by the console’s key alone \((.+)\): to (\w+), the policy counts only (.+)$/,
    (m, l) => t('answer.console_key_alone', { via: m[1]!, act: m[2]!, allowed: m[3]! }, l),
  ],
  [
    /^proven by ([\w-]+): to (\w+), the policy counts only (.+)$/,
    (m, l) => t('answer.proof_not_counted', { proof: m[1]!, act: m[2]!, allowed: m[3]! }, l),
  ],
  [
    /^this passkey is not one of (.+)’s in the policy$/,
    (m, l) => t('answer.passkey_not_listed', { person: m[1]! }, l),
  ],
  [/^the policy names no console \(webauthn/, (_, l) => t('answer.passkey_no_console', {}, l)],
  [
    /^the passkey’s counter (\d+) does not move past one already accepted/,
    (m, l) => t('answer.passkey_replayed', { counter: m[1]! }, l),
  ],
  [
    /^([^\s]+)’s passkey: (.+)$/s,
    (m, l) => {
      const known = PASSKEY_REASONS_RU.map(([shape, say]) => [shape.exec(m[2]!), say] as const).find(
        ([r]) => r,
      );
      return t('answer.passkey_refused', { person: m[1]!, why: known ? known[1](known[0]!) : m[2]! }, l);
    },
  ],
  [
    /^the file's record has no verified submit statement: resubmit it$/,
    (_, l) => t('answer.no_submitter', {}, l),
  ],
  [
    /^it was signed at (\S+), more than 5 minutes ago: sign it again$/,
    (m, l) => t('answer.signed_long_ago', { at: m[1]! }, l),
  ],
  [
    /^(\S+) approved batch (\S+) at (\S+), after this approval's time (\S+): sign it again$/,
    (m, l) => t('answer.dated_before_own', { by: m[1]!, batchId: m[2]!, at: m[3]!, own: m[4]! }, l),
  ],
];

/** The workflow's answer (or refusal) in `lang`; English answers are given back as they are. */
export function commandAnswer(answer: string, lang: Lang = currentLang()): string {
  if (lang === 'en') return answer;
  for (const [shape, say] of SHAPES) {
    const m = shape.exec(answer);
    if (m) return say(m, lang);
  }
  return answer;
}

/**
 * Why a batch waits beyond an ordinary approval, in `lang`, from the reason the worker gave (its
 * `because`): a record with no verified submit statement, or a lone approver past the daily limit.
 */
export function holdReason(because: string | undefined, lang: Lang = currentLang()): string | undefined {
  if (!because) return undefined;
  if (because.startsWith("the file's record has no verified submit statement"))
    return t('status.no_submitter', {}, lang);
  const over =
    /; (\S+)'s approvals alone on (\S+) would total (.+?) with this file .*?, more than the daily limit of (.+?): (\d+) approvers needed$/.exec(
      because,
    );
  if (over)
    return t(
      'status.daily_limit',
      { person: over[1]!, day: over[2]!, sum: over[3]!, limit: over[4]!, needed: over[5]! },
      lang,
    );
  const unknown =
    /; (\S+) approved alone and (?:the evidence of (\S+)'s approvals is incomplete \((.+)\)|the approvals of (\S+) could not be summed): a second approver is needed: (\d+) approvers needed$/.exec(
      because,
    );
  if (unknown)
    return t(
      'status.daily_unknown',
      {
        person: unknown[1]!,
        day: unknown[2] ?? unknown[4]!,
        why: unknown[3] ?? 'no evidence',
        needed: unknown[5]!,
      },
      lang,
    );
  return undefined;
}

/** The worker's reason (`because`, English in history: workflows/shared/approval.ts) in `lang`. */
export function approvalReason(because: string, lang: Lang): string {
  const [base, ...rest] = because.split('; ');
  const tail = rest.length ? holdReason(because, lang)?.trim() : undefined;
  let m: RegExpExecArray | null;
  let said: string;
  if ((m = /^the policy requires approval of (dropped|submitted) files$/.exec(base!)))
    said = t('approvalReason.policy', { source: m[1] as 'dropped' | 'submitted' }, lang);
  else if ((m = /^the policy does not require approval of (dropped|submitted) files$/.exec(base!)))
    said = t('approvalReason.notByPolicy', { source: m[1] as 'dropped' | 'submitted' }, lang);
  else if (base === 'its submitter asked for approval') said = t('approvalReason.submitterAsked', {}, lang);
  else if (base === 'a recurring payrun’s period always needs approval')
    said = t('approvalReason.scheduled', {}, lang);
  else if (base === 'its starter asked for approval') said = t('approvalReason.starterAsked', {}, lang);
  else if (base?.startsWith("the file's record has no verified submit statement"))
    said = t('approvalReason.noSubmitter', {}, lang);
  else if ((m = /^started outside any batch, for more than (\d+) kopecks/.exec(base!)))
    said = t('approvalReason.outsideAbove', { above: Number(m[1]) }, lang);
  else if ((m = /^started outside any batch, for at most (\d+) kopecks$/.exec(base!)))
    said = t('approvalReason.outsideBelow', { above: Number(m[1]) }, lang);
  else return because;
  return tail ? `${said}; ${tail}` : said;
}
