import type { KeyObject } from 'node:crypto';
import { loadOptionalWebhookVerificationConfig, parseBankPublicKey, type Env } from '../config';

/**
 * The bank's public key lets payouts believe a signed webhook instead of reading session/status after
 * it (two partner calls fewer per payout). Optional: without it every bank event is read from the bank,
 * and the worker says so once. A key that is set but is not a PEM public key stops the worker by name.
 */
export function loadWorkerBankKey(
  env: Env | undefined,
  warn: (message: string) => void,
): KeyObject | undefined {
  const { bankPublicKeyPem, environment } = loadOptionalWebhookVerificationConfig(env);
  if (bankPublicKeyPem) return parseBankPublicKey({ environment, bankPublicKeyPem });
  const suffix = environment === 'live' ? 'LIVE' : 'TEST';
  warn(
    `BANK_PUBLIC_KEY_${suffix}(_FILE) is not set: payouts read session/status after every bank event instead of checking its signature`,
  );
  return undefined;
}
