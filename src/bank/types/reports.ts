import { z } from 'zod';
import { AmountDetailsSchema } from './common';
import { digits, isoDate, isoDateTime, parseIsoDate } from './rules';

/** report/account_balance, report/account_statement and wallet/balance (the security deposit). */

export const BALANCE_ACCOUNT_PREFIXES = ['40702', '40703', '40802', '40807', '40701'] as const;

export const AccountBalanceParamsSchema = z.looseObject({
  account_number: digits(20).refine(
    (a) => BALANCE_ACCOUNT_PREFIXES.some((p) => a.startsWith(p)),
    'account_prefix_40702_40703_40802_40807_40701',
  ),
});
export type AccountBalanceParams = z.input<typeof AccountBalanceParamsSchema>;

export const AccountBalanceResponseSchema = z.looseObject({
  status: z.string(),
  account_number: z.string().optional(),
  account_currency: z.string().optional(),
  balance: z.looseObject({ current_balance: z.number().int() }),
});
export type AccountBalanceResponse = z.infer<typeof AccountBalanceResponseSchema>;

/** One day only: date_from must equal date_to (and, said separately by the bank, not exceed it). */
export const AccountStatementParamsSchema = z
  .looseObject({ account_number: digits(20), date_from: isoDate, date_to: isoDate })
  .superRefine((p, ctx) => {
    const from = parseIsoDate(p.date_from);
    const to = parseIsoDate(p.date_to);
    if (!from || !to || p.date_from === p.date_to) return;
    const rule = from > to ? 'date_from_after_date_to' : 'date_from_must_equal_date_to';
    ctx.addIssue({ code: 'custom', path: ['date_to'], message: rule });
  });
export type AccountStatementParams = z.input<typeof AccountStatementParamsSchema>;

export const StatementTransactionSchema = z.looseObject({
  amount: z.number().int().nonnegative(),
  base_amount: z.number().int().nullish(),
  currency: z.string(),
  payment_date: z.string(),
  bank_system_id: z.string(),
  transaction_id: z.string().nullish(),
  session_id: z.string().nullish(),
  purpose: z.string(),
  counter_party: z.looseObject({
    kpp: z.string().nullish(),
    inn: z.string().nullish(),
    name: z.string(),
    account_number: z.string(),
    bank_code: z.string(),
  }),
  type: z.string(),
});
export type StatementTransaction = z.infer<typeof StatementTransactionSchema>;

const nullableInt = z.number().int().nullish();

export const AccountStatementSchema = z.looseObject({
  date_from: z.string().optional(),
  date_to: z.string().optional(),
  account_number: z.string().optional(),
  total_turnover: z
    .looseObject({
      debet: nullableInt,
      credit: nullableInt,
      debet_base: nullableInt,
      credit_base: nullableInt,
    })
    .optional(),
  total_balance: z
    .looseObject({
      opening: nullableInt,
      closing: nullableInt,
      opening_base: nullableInt,
      closing_base: nullableInt,
    })
    .optional(),
  transactions: z.array(StatementTransactionSchema),
});
export type AccountStatement = z.infer<typeof AccountStatementSchema>;

export const AccountStatementResponseSchema = z.looseObject({
  status: z.string(),
  method: z.looseObject({ name: z.string().optional(), account_statement: AccountStatementSchema }),
});
export type AccountStatementResponse = z.infer<typeof AccountStatementResponseSchema>;

export const WalletBalanceParamsSchema = z.looseObject({ request_datetime: isoDateTime });
export type WalletBalanceParams = z.input<typeof WalletBalanceParamsSchema>;

export const WalletBalanceResponseSchema = z.looseObject({
  status: z.string(),
  wallets: z.array(z.looseObject({ id: z.string(), amount_details: AmountDetailsSchema })),
});
export type WalletBalanceResponse = z.infer<typeof WalletBalanceResponseSchema>;
