import type { ApiVersion } from './paths';

/**
 * Callers speak one model, with the API v1 names. v2 renamed three objects ("using the wrong name
 * causes failed operations"), so requests to a v2 path are renamed on the way out, and every
 * response and webhook is renamed back on the way in, whatever version was asked for: a v1 path
 * answering with v2 names is read the same way.
 */
const V1_TO_V2: Record<string, string> = {
  payment_method: 'payout_details',
  payments: 'payout_list',
  acquiring_payments: 'payment_list',
};

const V2_TO_V1: Record<string, string> = Object.fromEntries(
  Object.entries(V1_TO_V2).map(([v1, v2]) => [v2, v1]),
);

/** Values the bank never interprets (or the provider owns): their keys are left untouched. */
const OPAQUE_KEYS = new Set([
  'metadata',
  'paymentMetadata',
  'payment_metadata',
  'confirm_information',
  'customer_interaction',
]);

function renameKeys(value: unknown, names: Record<string, string>, depth = 0): unknown {
  if (depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, names, depth + 1));
  if (!value || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(source)) {
    const renamed = names[key];
    // Never overwrite: if both spellings are present, both pass through as sent.
    const target = renamed && !(renamed in source) ? renamed : key;
    out[target] = OPAQUE_KEYS.has(key) ? v : renameKeys(v, names, depth + 1);
  }
  return out;
}

/** Caller model → the names of the version the request goes to. */
export function toWire(body: unknown, version: ApiVersion): unknown {
  return version === 2 ? renameKeys(body, V1_TO_V2) : body;
}

/** Anything the bank sends → caller model (v1 names). */
export function fromWire(body: unknown): unknown {
  return renameKeys(body, V2_TO_V1);
}
