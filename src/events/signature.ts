/**
 * How payrun signs an event and how a receiver checks it (docs/events.md prints the same check in ten
 * lines of TypeScript and of Python): HMAC-SHA256 with the endpoint's secret over `t + "." + raw body`,
 * sent as `Payrun-Signature: t=<unix seconds>,v1=<hex>`. The timestamp is signed, so a captured request
 * replayed after the tolerance is refused; the event id (`Payrun-Event-Id`, also in the body) dedups.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Payrun-Signature';
export const EVENT_ID_HEADER = 'Payrun-Event-Id';
export const EVENT_TYPE_HEADER = 'Payrun-Event-Type';
/** How old a signature a receiver accepts: five minutes, as the webhook conventions payers know. */
export const TOLERANCE_SECONDS = 300;

export function signatureHeader(secret: Buffer | string, rawBody: string, nowSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${nowSeconds}.${rawBody}`).digest('hex');
  return `t=${nowSeconds},v1=${v1}`;
}

/** The documented check: true only for a fresh signature of these exact bytes with this secret. */
export function verifySignature(
  secret: Buffer | string,
  rawBody: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = TOLERANCE_SECONDS,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !parts.v1) return false;
  const want = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const got = Buffer.from(parts.v1, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
