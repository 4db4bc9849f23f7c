import { ConfigError, type Env } from './core';

/**
 * PAYRUN_RECONCILE_ACCOUNTS: the accounts `payrun reconcile` works on when no --account is given
 * (comma-separated, 20 digits each); empty when unset.
 */
export function loadReconcileAccounts(env: Env = process.env): string[] {
  const accounts = (env.PAYRUN_RECONCILE_ACCOUNTS ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = accounts.find((a) => !/^\d{20}$/.test(a));
  if (bad) throw new ConfigError([`PAYRUN_RECONCILE_ACCOUNTS: "${bad}" is not a 20-digit account number`]);
  return accounts;
}
