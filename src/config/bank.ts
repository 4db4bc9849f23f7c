import { createPublicKey, type KeyObject } from 'node:crypto';
// Temporal's own reading of a Duration, so '45 seconds' means here what it means to the server.
import { msToNumber } from '@temporalio/common/lib/time';
import type { ActivityOptions } from '@temporalio/common';
import { z } from 'zod';
import * as activityOptions from '../../workflows/shared/activity-options';
import { ConfigError, parseSection, positiveInt, readPem, type Env } from './core';

/** BANK_CONNECT_TIMEOUT_MS: a bank that does not accept a connection in 5 s is down, not slow. */
export const DEFAULT_BANK_CONNECT_TIMEOUT_MS = 5_000;
/** BANK_REQUEST_TIMEOUT_MS: one attempt's deadline, from sending to the answer's last byte. */
export const DEFAULT_BANK_REQUEST_TIMEOUT_MS = 30_000;

const bankEnvSchema = z.object({
  environment: z.enum(['test', 'live']).default('test'),
  baseUrlTest: z.url().optional(),
  baseUrlLive: z.url().optional(),
  project: z.string().min(1, 'required: the project id issued by the bank manager'),
  submerchant: z.string().optional(),
  privateKey: z.string().optional(),
  privateKeyFile: z.string().optional(),
  apiVersion: z.enum(['1', '2']).default('1'),
  connectTimeoutMs: positiveInt.default(DEFAULT_BANK_CONNECT_TIMEOUT_MS),
  requestTimeoutMs: positiveInt.default(DEFAULT_BANK_REQUEST_TIMEOUT_MS),
});

export interface BankConfig {
  environment: 'test' | 'live';
  baseUrl: string;
  project: string;
  submerchant?: string;
  privateKeyPem: string;
  apiVersion: 1 | 2;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * The activities that call the bank, by their names in workflows/shared/activity-options.ts. Temporal owns
 * their retries: an attempt it abandons (startToClose) while the bank may still answer would be
 * retried beside a request still in flight, so each must outlast one request.
 */
export const BANK_CALLING_ACTIVITIES = [
  'BANK_WRITE_ONCE',
  'LOOKUP_THEN_CREATE',
  'BANK_SETTLE',
  'BANK_READ',
  'NPD_CHECK',
  'NPD_STATUS',
  'REFUND_WRITE_ONCE',
  'REFUND_READ',
  'RECONCILIATION_ACCOUNTS',
  'RECONCILIATION_STATEMENT',
  'SELF_EMPLOYED_LINK',
  'RETURN_EVIDENCE', // a statement read again
  'BATCH_STORE', // checkDeposit: wallet/balance
] as const;

/**
 * The bank-calling activity whose attempt ends first, and when: its start-to-close timeout, or its
 * heartbeat timeout when shorter (a bank call sends no heartbeat while it waits for the answer).
 */
export function shortestBankActivity(): { name: string; startToCloseMs: number } {
  return BANK_CALLING_ACTIVITIES.map((name) => {
    const { startToCloseTimeout, heartbeatTimeout } = activityOptions[name] as ActivityOptions;
    const limits = [startToCloseTimeout!, ...(heartbeatTimeout ? [heartbeatTimeout] : [])];
    return { name, startToCloseMs: Math.min(...limits.map(msToNumber)) };
  }).reduce((a, b) => (b.startToCloseMs < a.startToCloseMs ? b : a));
}

/** Timeouts that must nest: a connection inside its request, a request inside its activity's attempt. */
function checkBankTimeouts(connectTimeoutMs: number, requestTimeoutMs: number): string[] {
  const problems: string[] = [];
  if (connectTimeoutMs > requestTimeoutMs)
    problems.push(
      `BANK_CONNECT_TIMEOUT_MS (${connectTimeoutMs}) must not exceed BANK_REQUEST_TIMEOUT_MS (${requestTimeoutMs}): connecting is part of the request`,
    );
  const shortest = shortestBankActivity();
  if (requestTimeoutMs >= shortest.startToCloseMs)
    problems.push(
      `BANK_REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must be below the start-to-close timeout of ${shortest.name} in workflows/shared/activity-options.ts (${shortest.startToCloseMs} ms), or Temporal retries a bank call whose request may still be answered`,
    );
  return problems;
}

/**
 * What calling the bank needs (the worker, the CLI's dry run): test and live are two base URLs; BANK_ENV
 * picks one. The bank's webhook key is the ingress's business (loadIngressConfig), not the caller's.
 */
export function loadBankConfig(env: Env = process.env): BankConfig {
  const s = parseSection(bankEnvSchema, env, {
    environment: 'BANK_ENV',
    baseUrlTest: 'BANK_BASE_URL_TEST',
    baseUrlLive: 'BANK_BASE_URL_LIVE',
    project: 'PARTNER_PROJECT',
    submerchant: 'PARTNER_SUBMERCHANT',
    privateKey: 'PARTNER_PRIVATE_KEY',
    privateKeyFile: 'PARTNER_PRIVATE_KEY_FILE',
    apiVersion: 'BANK_API_VERSION',
    connectTimeoutMs: 'BANK_CONNECT_TIMEOUT_MS',
    requestTimeoutMs: 'BANK_REQUEST_TIMEOUT_MS',
  });
  const live = s.environment === 'live';
  const problems: string[] = [];
  const baseUrl = live ? s.baseUrlLive : s.baseUrlTest;
  if (!baseUrl)
    problems.push(
      `${live ? 'BANK_BASE_URL_LIVE' : 'BANK_BASE_URL_TEST'}: required when BANK_ENV=${s.environment}`,
    );
  const privateKeyPem = readPem(s.privateKey, s.privateKeyFile, 'PARTNER_PRIVATE_KEY_FILE');
  if (!privateKeyPem)
    problems.push('PARTNER_PRIVATE_KEY or PARTNER_PRIVATE_KEY_FILE: required (signs requests)');
  problems.push(...checkBankTimeouts(s.connectTimeoutMs, s.requestTimeoutMs));
  if (problems.length) throw new ConfigError(problems);
  return {
    environment: s.environment,
    baseUrl: baseUrl!,
    project: s.project,
    submerchant: s.submerchant,
    privateKeyPem: privateKeyPem!,
    apiVersion: s.apiVersion === '2' ? 2 : 1,
    connectTimeoutMs: s.connectTimeoutMs,
    requestTimeoutMs: s.requestTimeoutMs,
  };
}

/** The bank settings when BANK_ENV is set, else undefined (the console runs without a bank). */
export function loadOptionalBankConfig(env: Env = process.env): BankConfig | undefined {
  return env.BANK_ENV ? loadBankConfig(env) : undefined;
}

const payerSchema = z.object({
  payerType: z.enum(['legal', 'foreign']).default('legal'),
  payerTaxNumber: z.string().regex(/^(\d{10}|\d{12})$/, 'must be a 10- or 12-digit INN'),
  payerName: z.string().min(1, 'required: the payer name printed on receipts'),
});
/** Who pays: printed on every self-employed recipient's fiscal receipt. */
export type PayerConfig = z.infer<typeof payerSchema>;

export function loadPayerConfig(env: Env = process.env): PayerConfig {
  return parseSection(payerSchema, env, {
    payerType: 'PAYER_TYPE',
    payerTaxNumber: 'PAYER_TAX_NUMBER',
    payerName: 'PAYER_NAME',
  });
}

const webhookVerificationSchema = z.object({
  environment: bankEnvSchema.shape.environment,
  bankPublicKeyTest: z.string().optional(),
  bankPublicKeyTestFile: z.string().optional(),
  bankPublicKeyLive: z.string().optional(),
  bankPublicKeyLiveFile: z.string().optional(),
});

export interface WebhookVerificationConfig {
  environment: 'test' | 'live';
  /** The bank's public key for BANK_ENV: it verifies X-PARTNER-SIGN on webhooks. */
  bankPublicKeyPem: string;
}

/**
 * What the webhook ingress needs to trust a webhook, and nothing more: it never signs requests,
 * so it does not demand (or get to see) the partner private key or the bank base URL.
 */
export function loadWebhookVerificationConfig(env: Env = process.env): WebhookVerificationConfig {
  const verification = loadOptionalWebhookVerificationConfig(env);
  if (!verification.bankPublicKeyPem) {
    const suffix = verification.environment === 'live' ? 'LIVE' : 'TEST';
    throw new ConfigError([
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: required (the bank's webhook key)`,
    ]);
  }
  return { environment: verification.environment, bankPublicKeyPem: verification.bankPublicKeyPem };
}

/** The same variables, the key may be absent (the worker can do without it, reading session/status). */
export function loadOptionalWebhookVerificationConfig(
  env: Env = process.env,
): Omit<WebhookVerificationConfig, 'bankPublicKeyPem'> & { bankPublicKeyPem?: string } {
  const s = parseSection(webhookVerificationSchema, env, {
    environment: 'BANK_ENV',
    bankPublicKeyTest: 'BANK_PUBLIC_KEY_TEST',
    bankPublicKeyTestFile: 'BANK_PUBLIC_KEY_TEST_FILE',
    bankPublicKeyLive: 'BANK_PUBLIC_KEY_LIVE',
    bankPublicKeyLiveFile: 'BANK_PUBLIC_KEY_LIVE_FILE',
  });
  const bankPublicKeyPem =
    s.environment === 'live'
      ? readPem(s.bankPublicKeyLive, s.bankPublicKeyLiveFile, 'BANK_PUBLIC_KEY_LIVE_FILE')
      : readPem(s.bankPublicKeyTest, s.bankPublicKeyTestFile, 'BANK_PUBLIC_KEY_TEST_FILE');
  return { environment: s.environment, ...(bankPublicKeyPem ? { bankPublicKeyPem } : {}) };
}

/** Parsed once at start-up: a bad key stops the process at once, naming the variable. */
export function parseBankPublicKey(verification: WebhookVerificationConfig): KeyObject {
  try {
    return createPublicKey(verification.bankPublicKeyPem);
  } catch (err) {
    const suffix = verification.environment === 'live' ? 'LIVE' : 'TEST';
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError([
      `BANK_PUBLIC_KEY_${suffix} or BANK_PUBLIC_KEY_${suffix}_FILE: not a public key in PEM (${reason})`,
    ]);
  }
}
