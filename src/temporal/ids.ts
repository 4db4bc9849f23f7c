import { createHmac } from 'node:crypto';
import { ConfigError, isProduction } from '../config';

/**
 * Workflow ids are visible to anyone who can list workflows (UI, CLI, visibility queries) and are
 * never encrypted. An id derived from an INN with a plain hash can be reversed by trying every INN:
 * ten check-digit-free digits are 10^10 candidates, minutes of SHA-256 on one GPU. An HMAC keyed by
 * a secret only payrun holds cannot be. (Wiring it into the taxpayer workflow id is the lead's change
 * in activities/bank.ts; see docs/security.md.)
 */
export function keyedIdHash(secret: Buffer, ...parts: string[]): string {
  return createHmac('sha256', secret).update(parts.join('\u0000')).digest('hex');
}

/** Dev and tests only: their INNs are test data, and every process must agree without set-up. */
const DEV_SECRET = Buffer.from('payrun-dev-workflow-id-secret-not-secret');

/**
 * PAYRUN_WORKFLOW_ID_SECRET (base64, at least 32 bytes): the HMAC key for ids derived from personal
 * data. Required in production; it must never change while taxpayer workflows run (a new secret
 * names new workflows, and the old ones' cached verdicts are simply not found again).
 */
export function loadWorkflowIdSecret(env: Record<string, string | undefined> = process.env): Buffer {
  const raw = env.PAYRUN_WORKFLOW_ID_SECRET;
  if (!raw) {
    if (isProduction(env))
      throw new ConfigError([
        'PAYRUN_WORKFLOW_ID_SECRET: required in production (base64 of 32+ random bytes: openssl rand -base64 32)',
      ]);
    return DEV_SECRET;
  }
  const secret = Buffer.from(raw, 'base64');
  if (secret.length < 32)
    throw new ConfigError([
      `PAYRUN_WORKFLOW_ID_SECRET: ${secret.length} bytes; at least 32 are needed (openssl rand -base64 32)`,
    ]);
  return secret;
}
