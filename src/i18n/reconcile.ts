import { entry } from './lang';

/**
 * What `payrun reconcile resolve` answers (src/cli/reconcile.ts): the worker's verdict, not the command's;
 * and what `payrun reconcile status` says of days not reconciled.
 */
export const RECONCILE_MESSAGES = {
  'reconcile.status.account': entry<{ account: string; last: string; open: number; behind: number }>({
    ru: (p) =>
      `${p.account}: сверен по ${p.last}, открытых расхождений ${p.open}, несверенных дней ${p.behind}`,
    en: (p) =>
      `${p.account}: reconciled up to ${p.last}, ${p.open} open difference(s), ${p.behind} day(s) not reconciled`,
  }),
  'reconcile.status.noStatement': entry<{ account: string; day: string; error: string }>({
    ru: (p) =>
      `  ${p.day} не сверен: выписки нет (${p.error}); payrun reconcile day ${p.day} --account ${p.account}`,
    en: (p) =>
      `  ${p.day} not reconciled: no statement (${p.error}); payrun reconcile day ${p.day} --account ${p.account}`,
  }),
  'reconcile.status.neverRun': entry<{ account: string; day: string }>({
    ru: (p) =>
      `  ${p.day} не сверен: сверка не запускалась; payrun reconcile day ${p.day} --account ${p.account}`,
    en: (p) => `  ${p.day} not reconciled: never run; payrun reconcile day ${p.day} --account ${p.account}`,
  }),
  'reconcile.resolve.done': entry<{ key: string; by: string; reason: string; policyVersion: string }>({
    ru: (p) =>
      `${p.key}: закрыто, ${p.by}: ${p.reason} (проверено исполнителем по политике ${p.policyVersion})`,
    en: (p) =>
      `${p.key}: resolved by ${p.by}: ${p.reason} (judged by the worker under policy ${p.policyVersion})`,
  }),
  'reconcile.resolve.refused': entry<{ key: string; why: string }>({
    ru: (p) => `${p.key}: не закрыто, расхождение остаётся открытым: ${p.why}`,
    en: (p) => `${p.key}: not resolved, the difference stays open: ${p.why}`,
  }),
  'reconcile.resolve.busy': entry<{ key: string }>({
    ru: (p) => `${p.key}: это расхождение уже закрывают; посмотрите payrun reconcile status через минуту`,
    en: (p) => `${p.key}: someone is resolving this difference now; see payrun reconcile status in a minute`,
  }),
  'reconcile.resolve.noReason': entry({
    ru: () => '--reason: напишите, почему расхождение закрыто',
    en: () => '--reason: say why the difference is resolved',
  }),
};
