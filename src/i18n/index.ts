/**
 * The one message catalogue: every text payrun shows people, by a stable code, in Russian (default)
 * or English (PAYRUN_LANG=en). Pure apart from reading PAYRUN_LANG when no language is given.
 */
import { ANSWER_MESSAGES } from './answers';
import { API_MESSAGES } from './api';
import { BATCH_MESSAGES } from './batch';
import { CONSOLE_MESSAGES } from './console';
import { CONSOLE_WORK_MESSAGES } from './console-work';
import { CSV_MESSAGES } from './csv';
import { DEMO_MESSAGES } from './demo';
import { ENGINE_MESSAGES } from './engine';
import { EVENT_MESSAGES } from './events';
import { PAYOUT_MESSAGES } from './payout';
import { PASSKEY_ANSWER_MESSAGES } from './passkeys';
import { RECIPIENT_MESSAGES } from './recipient';
import { RECONCILE_MESSAGES } from './reconcile';
import { RETURN_MESSAGES } from './returns';
import { REVIEW_MESSAGES } from './review';
import { SCHEDULE_MESSAGES } from './schedule';
import { RECURRING_MESSAGES } from './recurring';
import { SUBMIT_MESSAGES } from './submit';
import { SIGN_MESSAGES } from './writable';
import { APPROVAL_REASON_MESSAGES, BATCH_STATE_MESSAGES } from './batch-state';
import { WORDS_MESSAGES } from './words';
import { currentLang, type Lang } from './lang';

export { currentLang, listRows, LANGS, money, moscowTime, plural, pluralEn, type Lang } from './lang';
export { charName, columnName, type CharName } from './csv';
export type { AmountPart, NamedRow } from './batch';
export { writableIn, type OutputEncoding } from './writable';
export { usageErrorText, usageHint } from './usage';

const CATALOGUE = {
  ...ANSWER_MESSAGES,
  ...API_MESSAGES,
  ...CSV_MESSAGES,
  ...BATCH_MESSAGES,
  ...CONSOLE_MESSAGES,
  ...CONSOLE_WORK_MESSAGES,
  ...DEMO_MESSAGES,
  ...ENGINE_MESSAGES,
  ...EVENT_MESSAGES,
  ...PAYOUT_MESSAGES,
  ...PASSKEY_ANSWER_MESSAGES,
  ...RECIPIENT_MESSAGES,
  ...RECONCILE_MESSAGES,
  ...RETURN_MESSAGES,
  ...REVIEW_MESSAGES,
  ...SIGN_MESSAGES,
  ...SUBMIT_MESSAGES,
  ...SCHEDULE_MESSAGES,
  ...RECURRING_MESSAGES,
  ...BATCH_STATE_MESSAGES,
  ...APPROVAL_REASON_MESSAGES,
  ...WORDS_MESSAGES,
};
type Catalogue = typeof CATALOGUE;
export type MessageCode = keyof Catalogue;
export type MessageParams<C extends MessageCode> = Parameters<Catalogue[C]['en']>[0];

/** The message of `code` with `params`, in `lang` (default: PAYRUN_LANG). */
export function t<C extends MessageCode>(
  code: C,
  ...args: MessageParams<C> extends Record<string, never>
    ? [params?: MessageParams<C>, lang?: Lang]
    : [params: MessageParams<C>, lang?: Lang]
): string {
  const [params, lang] = args;
  const texts = CATALOGUE[code] as { ru: (p: unknown) => string; en: (p: unknown) => string };
  return texts[lang ?? currentLang()](params ?? {});
}
export { shownState, stateLine, SHOWN_STATES, type ShownState, type StateFacts } from './batch-state';
