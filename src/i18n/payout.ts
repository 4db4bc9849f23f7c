import { entry } from './lang';

/** What `payrun payout reconcile` and `payrun refund status` answer (src/cli/payout.ts, src/cli/refund.ts). */
export const PAYOUT_MESSAGES = {
  'payout.reconcile.running': entry<{ reference: string }>({
    ru: (p) => `${p.reference}: выплата ещё идёт (payrun payout status ${p.reference}); сверять нечего`,
    en: (p) => `${p.reference}: still running (payrun payout status ${p.reference}); nothing to reconcile`,
  }),
  'payout.reconcile.paid': entry<{ reference: string; state: string }>({
    ru: (p) => `${p.reference}: выплачено (${p.state}); сверять нечего`,
    en: (p) => `${p.reference}: paid (${p.state}); nothing to reconcile`,
  }),
  'payout.reconcile.notPaid': entry<{ reference: string; state: string; reason: string }>({
    ru: (p) =>
      `${p.reference}: не выплачено (${p.state}: ${p.reason}); выплатит payrun batch retry-failed или новая подача`,
    en: (p) =>
      `${p.reference}: not paid (${p.state}: ${p.reason}); payrun batch retry-failed or a new submission pays it`,
  }),
  'payout.reconcile.bankPaid': entry<{ reference: string; session: string }>({
    ru: (p) =>
      `${p.reference}: банк выплатил (сессия ${p.session}); записано как выплаченное, повторно не платится`,
    en: (p) => `${p.reference}: the bank paid it (session ${p.session}); recorded as paid, never paid again`,
  }),
  'payout.reconcile.bankPaidNothing': entry<{ reference: string }>({
    ru: (p) => `${p.reference}: банк ничего не выплатил; выплатит payrun batch retry-failed или новая подача`,
    en: (p) => `${p.reference}: the bank paid nothing; payrun batch retry-failed or a new submission pays it`,
  }),
  'payout.reconcile.personMustCheck': entry<{ reference: string; reason: string }>({
    ru: (p) =>
      `${p.reference}: payrun не может сам узнать у банка, что сделал прежний запуск; проверьте в банке: ${p.reason}`,
    en: (p) =>
      `${p.reference}: payrun cannot learn from the bank what an earlier run did; check at the bank: ${p.reason}`,
  }),
  'refund.status.unknownEnding': entry<{ reference: string; how: string; why: string }>({
    ru: (p) =>
      `${p.reference}: возврат завершился (${p.how}): ${p.why}. Новый payrun refund create с той же ссылкой сначала сверит прежние запуски с банком и ничего не вернёт дважды`,
    en: (p) =>
      `${p.reference}: the refund workflow ended ${p.how}: ${p.why}. A new payrun refund create with the same reference settles the earlier runs with the bank first and refunds nothing twice`,
  }),
  'refund.status.personMustCheck': entry<{ reference: string; reason: string }>({
    ru: (p) => `${p.reference}: возврат ждёт человека; проверьте в банке: ${p.reason}`,
    en: (p) => `${p.reference}: the refund needs a person; check at the bank: ${p.reason}`,
  }),
};
