import { entry } from './lang';

/** What `payrun reconcile resolve` answers (src/cli/reconcile.ts): the worker's verdict, not the command's. */
export const RECONCILE_MESSAGES = {
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
