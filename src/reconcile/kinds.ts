/**
 * Every kind of difference between payrun and the bank's statement, named once, with what to do.
 * The report, the CLI and docs/reconciliation.md all read this table.
 */
export const DIFFERENCE_KINDS = {
  missing_from_statement: {
    ru: 'выплата payrun не найдена в выписке банка',
    en: 'paid by payrun, missing from the bank statement',
    actionRu:
      'подождать: банк подтверждает выплаты с задержкой до 7 рабочих дней; позже — `payrun payout reconcile REF` и запрос в банк',
    actionEn:
      "wait: the bank's confirmation may lag up to 7 business days; after that run `payrun payout reconcile REF` and ask the bank",
  },
  unknown_to_payrun: {
    ru: 'списание в выписке, которого payrun не делал',
    en: 'in the statement, unknown to payrun (money moved outside payrun)',
    actionRu: 'выяснить, кто провёл платёж мимо payrun; закрыть с причиной (`payrun reconcile resolve`)',
    actionEn: 'find out who paid outside payrun; resolve with a reason (`payrun reconcile resolve`)',
  },
  amount_differs: {
    ru: 'сумма в выписке отличается от суммы выплаты',
    en: "the statement's amount differs from the payout's",
    actionRu: 'сверить с банком по номеру сессии; закрыть с причиной после исправления',
    actionEn: 'check with the bank by session id; resolve with a reason once corrected',
  },
  returned: {
    ru: 'выплата вернулась (зачисление, отменяющее выплату)',
    en: 'returned: a credit that reverses a payout',
    actionRu:
      'уточнить реквизиты получателя и выплатить снова (`payrun batch retry-failed`); закрыть с причиной',
    actionEn:
      "check the recipient's details and pay again (`payrun batch retry-failed`); resolve with a reason",
  },
  balance_mismatch: {
    ru: 'остаток не сходится: входящий + обороты ≠ исходящий',
    en: 'the balance does not follow from opening + turnover',
    actionRu: 'запросить у банка исправленную выписку; закрыть с причиной',
    actionEn: 'ask the bank for a corrected statement; resolve with a reason',
  },
  statement_changed: {
    ru: 'выписка банка за день изменилась после прошлой сверки',
    en: "the bank's statement of the day changed since it was last reconciled",
    actionRu: 'сверить изменённые строки с банком (номер строки и сессии в описании); закрыть с причиной',
    actionEn:
      'check the changed lines with the bank (line and session ids in the detail); resolve with a reason',
  },
  paired_by_amount: {
    ru: 'списание без номера сессии совпало с выплатой только по сумме и счёту: подтвердить',
    en: 'a debit without a session id has only the amount and account of a payout: confirm it',
    actionRu: 'подтвердить у банка, что это та выплата (номер сессии в описании); закрыть с причиной',
    actionEn:
      'confirm with the bank that the line is this payout (session id in the detail); resolve with a reason',
  },
} as const;

export type DifferenceKind = keyof typeof DIFFERENCE_KINDS;
export const DIFFERENCE_KIND_NAMES = Object.keys(DIFFERENCE_KINDS) as DifferenceKind[];
