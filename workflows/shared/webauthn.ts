/**
 * A WebAuthn assertion (a passkey's signature) checked the way a relying party must (Web Authentication
 * Level 2, §7.2 "Verifying an Authentication Assertion"), in pure deterministic code: the workflow bundle
 * includes it, as it does workflows/shared/approval.ts, so no Node crypto and no Buffer here. ES256 (P-256) and
 * EdDSA (Ed25519) from @noble/curves, SHA-256 from @noble/hashes.
 *
 * The browser signs `authenticatorData ‖ SHA-256(clientDataJSON)`; clientDataJSON names the challenge and
 * the origin, authenticatorData the relying party (as SHA-256 of its id), the flags and the counter. So a
 * valid assertion proves: this credential's private key, on an authenticator that verified its user,
 * answered this challenge for this site.
 */
import { hexToBytes, utf8ToBytes } from '@noble/curves/abstract/utils';
import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/nist';
import { sha256 } from '@noble/hashes/sha2';

export type PasskeyAlgorithm = 'es256' | 'eddsa';

/** A registered passkey as the policy lists it: the public key raw (65-byte P-256 point, 32-byte Ed25519). */
export interface PasskeyCredential {
  /** The credential id, base64url, as the browser reports it. */
  id: string;
  alg: PasskeyAlgorithm;
  publicKey: Uint8Array;
}

/** What `navigator.credentials.get()` answers, each part base64url as the browser gives it. */
export interface PasskeyAssertion {
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
}

export interface PasskeyExpectation {
  /** The bytes the relying party asked to be signed (payrun: SHA-256 of the canonical statement). */
  challenge: Uint8Array;
  /** Exactly the console's origin, e.g. `https://payrun.example.ru`. */
  origin: string;
  /** The relying party id, e.g. `payrun.example.ru`. */
  rpId: string;
  /** The highest counter seen from this credential so far (absent: none seen). */
  lastCounter?: number;
}

export type PasskeyCheck = { ok: true; counter: number } | { ok: false; reason: string };

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
/** rpIdHash (32) + flags (1) + signCount (4): the fixed head of authenticatorData. */
const AUTH_DATA_HEAD = 37;

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_INDEX = new Map([...B64URL].map((c, i) => [c, i]));

/** base64url (padding tolerated) to bytes; undefined for anything else. */
export function fromBase64url(text: string): Uint8Array | undefined {
  const clean = text.replace(/=+$/, '');
  if (clean.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((clean.length * 6) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const c of clean) {
    const v = B64URL_INDEX.get(c);
    if (v === undefined) return undefined;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

export function toBase64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let k = 0; k < chars; k++) out += B64URL[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/** UTF-8 to text without TextDecoder (not every workflow sandbox has it); undefined when malformed. */
function utf8(bytes: Uint8Array): string | undefined {
  let escaped = '';
  for (const b of bytes) escaped += `%${b.toString(16).padStart(2, '0')}`;
  try {
    return decodeURIComponent(escaped);
  } catch {
    return undefined;
  }
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function signatureHolds(cred: PasskeyCredential, signed: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (cred.alg === 'eddsa') return ed25519.verify(signature, signed, cred.publicKey);
    // WebAuthn's ES256 signatures are ASN.1 DER; authenticators need not produce low-S ones.
    return p256.verify(signature, sha256(signed), cred.publicKey, {
      prehash: false,
      format: 'der',
      lowS: false,
    });
  } catch {
    return false;
  }
}

/** Whether `assertion` is this credential answering `expected`, with its user verified; the counter it carries. */
export function verifyPasskeyAssertion(
  assertion: PasskeyAssertion,
  credential: PasskeyCredential,
  expected: PasskeyExpectation,
): PasskeyCheck {
  const refuse = (reason: string): PasskeyCheck => ({ ok: false, reason });
  if (assertion.credentialId !== credential.id)
    return refuse('the passkey that signed is not the one the policy lists');
  const authData = fromBase64url(assertion.authenticatorData);
  const clientBytes = fromBase64url(assertion.clientDataJSON);
  const signature = fromBase64url(assertion.signature);
  if (!authData || !clientBytes || !signature) return refuse('the passkey answer is not base64url');
  if (authData.length < AUTH_DATA_HEAD) return refuse('the authenticator data is too short');

  const clientText = utf8(clientBytes);
  let client: { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
  try {
    client = clientText === undefined ? {} : (JSON.parse(clientText) as typeof client);
  } catch {
    return refuse('the client data is not JSON');
  }
  if (client.type !== 'webauthn.get') return refuse('the client data is not an assertion (webauthn.get)');
  if (client.challenge !== toBase64url(expected.challenge))
    return refuse('the passkey signed another challenge: not this statement');
  if (client.origin !== expected.origin)
    return refuse(`the passkey answered another origin (${String(client.origin)})`);
  if (client.crossOrigin === true) return refuse('the passkey was asked from inside another site’s frame');

  if (!equalBytes(authData.subarray(0, 32), sha256(utf8ToBytes(expected.rpId))))
    return refuse('the passkey answered another relying party');
  const flags = authData[32]!;
  if (!(flags & FLAG_USER_PRESENT)) return refuse('the authenticator saw no user present');
  if (!(flags & FLAG_USER_VERIFIED))
    return refuse('the authenticator did not verify its user (PIN or biometrics required)');
  const counter =
    ((authData[33]! << 24) >>> 0) + (authData[34]! << 16) + (authData[35]! << 8) + authData[36]!;
  // Both zero: an authenticator that keeps no counter (synced passkeys); otherwise it must move forward.
  const last = expected.lastCounter;
  if (last !== undefined && (counter !== 0 || last !== 0) && counter <= last)
    return refuse(
      `the passkey's counter went back or repeated (${counter} after ${last}): a copy or a replay`,
    );

  if (!signatureHolds(credential, concat(authData, sha256(clientBytes)), signature))
    return refuse('the passkey signature does not verify');
  return { ok: true, counter };
}

/**
 * The raw public key inside a browser's `getPublicKey()` answer (SubjectPublicKeyInfo, DER): the 65-byte
 * P-256 point (0x04 ‖ x ‖ y) or the 32-byte Ed25519 key after the algorithm's fixed head. Refuses anything else.
 */
export function rawKeyFromSpki(alg: PasskeyAlgorithm, spki: Uint8Array): Uint8Array | undefined {
  const prefix = SPKI_PREFIX[alg];
  if (spki.length !== prefix.length + (alg === 'es256' ? 65 : 32)) return undefined;
  if (!equalBytes(spki.subarray(0, prefix.length), prefix)) return undefined;
  return spki.slice(prefix.length);
}

/** The DER head of each key type's SubjectPublicKeyInfo: id-ecPublicKey on prime256v1; id-Ed25519. */
const SPKI_PREFIX: Record<PasskeyAlgorithm, Uint8Array> = {
  es256: hexToBytes('3059301306072a8648ce3d020106082a8648ce3d030107034200'),
  eddsa: hexToBytes('302a300506032b6570032100'),
};
