import { entry, money } from './lang';

/** A payout the recipient's bank sent back, its receipt, and re-paying it (src/cli/payout.ts, receipts.ts, batch). */
export const RETURN_MESSAGES = {
  'return.payout': entry<{ date: string; words: string; source: string }>({
    ru: (p) =>
      `возвращено банком получателя ${p.date}: «${p.words}» (${p.source === 'webhook' ? 'подписанное уведомление банка' : 'выписка банка'})`,
    en: (p) =>
      `returned by the recipient's bank on ${p.date}: "${p.words}" (${p.source === 'webhook' ? "the bank's signed webhook" : "the bank's statement"})`,
  }),
  'return.batch': entry<{ count: number; kopecks: number }>({
    ru: (p) =>
      `возвращено банком получателя: ${p.count}, ${money(p.kopecks)} (payrun batch retry-failed выплатит снова)`,
    en: (p) =>
      `returned by the recipient's bank: ${p.count}, ${money(p.kopecks)} (payrun batch retry-failed pays them again)`,
  }),
  'receipts.none': entry<Record<string, never>>({
    ru: () => 'чеков к аннулированию нет',
    en: () => 'no receipts to annul',
  }),
  'receipts.line': entry<{
    receipt: string;
    reference: string;
    kopecks: number;
    date: string;
    reason: string;
  }>({
    ru: (p) =>
      `${p.receipt}\t${p.reference}\t${money(p.kopecks)}\tвозврат ${p.date}\tпричина ${p.reason} (возврат средств)`,
    en: (p) =>
      `${p.receipt}\t${p.reference}\t${money(p.kopecks)}\treturned ${p.date}\treason ${p.reason} (refund)`,
  }),
  'receipts.written': entry<{ count: number; file: string }>({
    ru: (p) => `чеков к аннулированию: ${p.count}; список записан в ${p.file}`,
    en: (p) => `receipts to annul: ${p.count}; the list is written to ${p.file}`,
  }),
  'receipts.annulled': entry<{ receipt: string; by: string }>({
    ru: (p) => `чек ${p.receipt} отмечен аннулированным (${p.by}); запись подписана и внесена в журнал`,
    en: (p) => `receipt ${p.receipt} recorded as annulled (${p.by}); the record is signed and audited`,
  }),
  'receipts.refused': entry<{ reason: string; version: string }>({
    ru: (p) => `не записано: ${p.reason} (политика ${p.version})`,
    en: (p) => `${p.reason} (the policy ${p.version})`,
  }),
  'receipts.may_not': entry<{ person: string; roles: string; needs: string }>({
    ru: (p) =>
      `${p.person} не может отмечать чеки аннулированными (роли: ${p.roles}; нужна роль: ${p.needs})`,
    en: (p) => `${p.person} may not record receipts annulled (roles: ${p.roles}; needs ${p.needs})`,
  }),
  'receipts.by_mismatch': entry<{ by: string; person: string }>({
    ru: (p) => `--by ${p.by}: вы вошли как ${p.person}`,
    en: (p) => `--by ${p.by}: you are signed in as ${p.person}`,
  }),
  'receipts.own_key': entry<{ person: string; via: string }>({
    ru: (p) => `${p.person}: запишите аннулирование своим ключом, не через ${p.via}`,
    en: (p) => `${p.person}: record it with your own key, not through ${p.via}`,
  }),
  'receipts.not_listed': entry<{ receipt: string }>({
    ru: (p) => `чека ${p.receipt} нет в списке к аннулированию (payrun receipts to-annul)`,
    en: (p) => `no receipt ${p.receipt} on the list to annul`,
  }),
  'receipts.not_to_annul': entry<{ receipt: string; state: string }>({
    ru: (p) =>
      `чек ${p.receipt} уже ${p.state === 'annulled' ? 'отмечен аннулированным' : 'не в списке к аннулированию'}`,
    en: (p) => `receipt ${p.receipt} is already ${p.state}`,
  }),
  'retry.returnUnproven': entry<{ reference: string; why: string }>({
    ru: (p) => `${p.reference}: возврат не подтверждён банком (${p.why}); повторно не платится`,
    en: (p) => `${p.reference}: the return is not proven by the bank (${p.why}); not paid again`,
  }),
  'retry.repaidAlready': entry<{ reference: string; derived: string }>({
    ru: (p) => `${p.reference}: возврат уже выплачен снова под ${p.derived}; второй раз не платится`,
    en: (p) => `${p.reference}: the return was already paid again as ${p.derived}; it is never paid twice`,
  }),
};
