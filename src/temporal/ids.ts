import { createHmac } from 'node:crypto';
export { loadWorkflowIdSecret } from '../config';

/**
 * Workflow ids are visible to anyone who can list workflows (UI, CLI, visibility queries) and are
 * never encrypted. An id derived from an INN with a plain hash can be reversed by trying every INN:
 * ten check-digit-free digits are 10^10 candidates, minutes of SHA-256 on one GPU. An HMAC keyed by
 * a secret only payrun holds cannot be (the per-person ids built on it: src/temporal/person-ids.ts;
 * see docs/security.md). The secret, PAYRUN_WORKFLOW_ID_SECRET, is read by
 * loadWorkflowIdSecret in src/config/temporal.ts.
 */
export function keyedIdHash(secret: Buffer, ...parts: string[]): string {
  return createHmac('sha256', secret).update(parts.join('\u0000')).digest('hex');
}
