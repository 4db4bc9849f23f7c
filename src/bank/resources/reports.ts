import { ENDPOINTS as E } from '../paths';
import type { Transport } from '../transport';
import * as R from '../types/reports';
import { bind } from './bind';

/** Account balance and one-day statements, and the security-deposit balance (wallet/balance). */
export function reportsResource(t: Transport) {
  return {
    accountBalance: bind(
      t,
      E.reportAccountBalance,
      R.AccountBalanceParamsSchema,
      R.AccountBalanceResponseSchema,
    ),
    accountStatement: bind(
      t,
      E.reportAccountStatement,
      R.AccountStatementParamsSchema,
      R.AccountStatementResponseSchema,
    ),
    walletBalance: bind(t, E.walletBalance, R.WalletBalanceParamsSchema, R.WalletBalanceResponseSchema),
  };
}
export type ReportsResource = ReturnType<typeof reportsResource>;
