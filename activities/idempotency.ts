import { createHash } from 'node:crypto';

/**
 * An idempotency key the bank accepts (4–64 characters) derived from what must happen once: the
 * operation's kind and the workflow identity it belongs to, so a retried or replayed call repeats it.
 */
export function idempotencyKey(kind: string, ...parts: string[]): string {
  return `${kind}-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 48)}`;
}
