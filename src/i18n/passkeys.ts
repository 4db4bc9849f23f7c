/**
 * Why a statement's proof does not count (workflows/shared/approval-proofs.ts, workflows/shared/webauthn.ts,
 * src/batch/services/passkey-evidence.ts say it in English; src/i18n/operator-answers.ts finds the shape and says it here).
 */
import { entry } from './lang';

const ACT_RU: Record<string, string> = {
  approve: 'одобрить',
  reject: 'отклонить',
  submit: 'отправить',
  payout: 'одобрить выплату',
};
const PROOF_RU: Record<string, string> = {
  'cli-key': 'личный ключ (командная строка)',
  passkey: 'ключ доступа (passkey)',
  'console-session': 'ключ консоли',
};
const proofsRu = (list: string) =>
  list
    .split(' or ')
    .map((p) => PROOF_RU[p] ?? p)
    .join(' или ');

export const PASSKEY_ANSWER_MESSAGES = {
  'answer.console_key_alone': entry<{ via: string; act: string; allowed: string }>({
    ru: (p) =>
      `подписано только ключом консоли (${p.via}): чтобы ${ACT_RU[p.act] ?? p.act}, политика принимает лишь ${proofsRu(p.allowed)}`,
    en: (p) =>
      `signed by the console’s key alone (${p.via}): to ${p.act}, the policy counts only ${p.allowed}`,
  }),
  'answer.proof_not_counted': entry<{ proof: string; act: string; allowed: string }>({
    ru: (p) =>
      `подтверждено так: ${PROOF_RU[p.proof] ?? p.proof}; чтобы ${ACT_RU[p.act] ?? p.act}, политика принимает лишь ${proofsRu(p.allowed)}`,
    en: (p) => `proven by ${p.proof}: to ${p.act}, the policy counts only ${p.allowed}`,
  }),
  'answer.passkey_not_listed': entry<{ person: string }>({
    ru: (p) => `этого ключа доступа нет среди ключей ${p.person} в политике`,
    en: (p) => `this passkey is not one of ${p.person}’s in the policy`,
  }),
  'answer.passkey_no_console': entry({
    ru: () =>
      'в политике не указан сайт консоли (webauthn.rp_id и webauthn.origin): ключи доступа не принимаются',
    en: () => 'the policy names no console (webauthn: rp_id, origin) for passkeys',
  }),
  'answer.passkey_replayed': entry<{ counter: string }>({
    ru: (p) =>
      `счётчик ключа доступа (${p.counter}) не больше уже принятого: повтор или скопированный аутентификатор`,
    en: (p) =>
      `the passkey’s counter ${p.counter} does not move past one already accepted: a replay or a copied authenticator`,
  }),
  'answer.passkey_refused': entry<{ person: string; why: string }>({
    ru: (p) => `ключ доступа ${p.person} не принят: ${p.why}`,
    en: (p) => `${p.person}’s passkey: ${p.why}`,
  }),
};

/** The assertion check's reasons (workflows/shared/webauthn.ts) in Russian; others are shown as given. */
export const PASSKEY_REASONS_RU: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^the passkey signed another challenge/, () => 'ключ доступа подписал другое утверждение, не это'],
  [/^the passkey answered another origin \((.*)\)$/, (m) => `ключ доступа ответил другому сайту (${m[1]})`],
  [/^the passkey answered another relying party$/, () => 'ключ доступа ответил другому сайту (rp_id)'],
  [
    /^the authenticator did not verify its user/,
    () => 'аутентификатор не проверил пользователя (нужен PIN-код или биометрия)',
  ],
  [/^the authenticator saw no user present$/, () => 'аутентификатор не увидел пользователя'],
  [
    /^the passkey's counter went back or repeated \((\d+) after (\d+)\)/,
    (m) => `счётчик ключа доступа не вырос (${m[1]} после ${m[2]}): повтор или копия`,
  ],
  [/^the passkey signature does not verify$/, () => 'подпись ключа доступа не сходится'],
];
