import { KeyObject, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';

/**
 * The bank's signature scheme, both directions: RSA with SHA-256 over the exact body bytes,
 * Base64 in X-PARTNER-SIGN. The partner signs requests with its private key; the bank signs
 * webhooks with its own, and each side verifies with the other's public key (PEM).
 */
export const SIGNATURE_HEADER = 'x-partner-sign';

export type KeyInput = string | Buffer | KeyObject;

function privateKey(key: KeyInput): KeyObject {
  return key instanceof KeyObject ? key : createPrivateKey(key);
}

function publicKey(key: KeyInput): KeyObject {
  return key instanceof KeyObject ? key : createPublicKey(key);
}

export function signBody(body: Buffer | string, key: KeyInput): string {
  return sign('sha256', Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), privateKey(key)).toString(
    'base64',
  );
}

/** False (never a throw) for a missing, malformed or wrong signature. */
export function verifyBody(body: Buffer | string, signatureB64: string | undefined, key: KeyInput): boolean {
  if (!signatureB64 || !/^[A-Za-z0-9+/=\s]+$/.test(signatureB64)) return false;
  try {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    return verify('sha256', bytes, publicKey(key), Buffer.from(signatureB64, 'base64'));
  } catch {
    return false;
  }
}
