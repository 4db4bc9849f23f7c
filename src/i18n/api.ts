/** The read API's refusals (src/api/), in the console's language: a company's system logs them as they are. */
import { entry } from './lang';

export const API_MESSAGES = {
  'api.unauthenticated': entry({
    ru: () => 'нужен токен API (Authorization: Bearer …) или вход в консоль',
    en: () => 'an API token (Authorization: Bearer …) or a console sign-in is needed',
  }),
  'api.forbidden': entry<{ person: string }>({
    ru: (p) => `у ${p.person} нет права читать это (docs/api.md, «Кто что читает»)`,
    en: (p) => `${p.person} may not read this (docs/api.md, "Who reads what")`,
  }),
  'api.not_found': entry({
    ru: () => 'не найдено',
    en: () => 'not found',
  }),
  'api.bad_inn': entry({
    ru: () => 'заголовок Payrun-Inn: нужен ИНН из 10 или 12 цифр с верными контрольными цифрами',
    en: () => 'header Payrun-Inn: an INN of 10 or 12 digits with valid check digits is needed',
  }),
  'api.bad_page': entry({
    ru: () => 'page — целое от 1, pageSize — от 1 до 500',
    en: () => 'page is a whole number from 1, pageSize from 1 to 500',
  }),
  'api.bad_state': entry({
    ru: () => 'state: состояние строки (succeeded, failed, …) или pending',
    en: () => 'state: a row state (succeeded, failed, …) or pending',
  }),
  'api.too_many': entry({
    ru: () => 'слишком много запросов; подождите минуту',
    en: () => 'too many requests; wait a minute',
  }),
  'api.unavailable': entry({
    ru: () => 'Temporal не ответил вовремя; повторите позже',
    en: () => 'Temporal did not answer in time; try again later',
  }),
  'api.failed': entry({
    ru: () => 'внутренняя ошибка; подробности в журнале консоли',
    en: () => 'internal error; the console’s log has the details',
  }),
  'api.token_no_file': entry({
    ru: () => '--file: куда записать токен? Укажите --file или PAYRUN_API_TOKENS_FILE',
    en: () => '--file: where does the token go? Give --file or set PAYRUN_API_TOKENS_FILE',
  }),
  'api.token_unknown': entry<{ person: string; where: string }>({
    ru: (p) => `--person: ${p.person} нет в файле полномочий ${p.where}`,
    en: (p) => `--person: ${p.person} is not a person of the policy ${p.where}`,
  }),
  'api.token_revoked': entry<{ person: string }>({
    ru: (p) => `--person: полномочия ${p.person} отозваны`,
    en: (p) => `--person: ${p.person} was revoked`,
  }),
  'api.token_no_reads': entry<{ person: string }>({
    ru: (p) =>
      `--person: роли ${p.person} не читают ничего из API (нужна viewer, service, preparer, approver или admin)`,
    en: (p) =>
      `--person: ${p.person}'s roles read nothing of the API (needs viewer, service, preparer, approver or admin)`,
  }),
  'api.token_made': entry<{ person: string; file: string; reads: string }>({
    ru: (p) =>
      `токен для ${p.person} добавлен в ${p.file} (хранится только его sha256); читает: ${p.reads}. ` +
      'Токен ниже показан один раз: передайте его системе, которая будет читать API',
    en: (p) =>
      `token for ${p.person} added to ${p.file} (only its sha256 is kept); reads: ${p.reads}. ` +
      'The token below is shown once: hand it to the system that will read the API',
  }),
};
