/**
 * AES-256-GCM for Temporal payloads and for payrun's files at rest, with the same keys.
 * A fresh random 12-byte IV per message; the key id travels with the ciphertext (payload metadata
 * `encryption-key-id`, or the envelope's second field) and is bound to it as additional data, so a
 * ciphertext relabelled with another key id fails authentication instead of decrypting garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PayloadKey } from '../config';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const ProtoPayload = temporal.api.common.v1.Payload;

/** A ciphertext names a key this process does not have: rotation dropped it, or the wrong key set. */
export class UnknownKeyIdError extends Error {
  constructor(
    readonly keyId: string,
    known: string[],
  ) {
    super(
      `data encrypted with key id "${keyId}", which is not among the configured keys (${known.join(', ') || 'none'}); ` +
        'add that key to PAYRUN_PAYLOAD_KEYS (after the current first key) to read it',
    );
    this.name = 'UnknownKeyIdError';
  }
}

export class DecryptionError extends Error {
  constructor(keyId: string) {
    super(
      `data labelled with key id "${keyId}" failed authentication: corrupted, or a different key of that id`,
    );
    this.name = 'DecryptionError';
  }
}

/** The configured keys: the first encrypts, every one decrypts. */
export class KeyRing {
  private readonly byId: Map<string, Buffer>;
  readonly current: PayloadKey;

  constructor(readonly keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new Error('a key ring needs at least one key');
    this.current = keys[0]!;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get ids(): string[] {
    return this.keys.map((k) => k.id);
  }

  /**
   * iv ‖ ciphertext ‖ tag, encrypted with the current key. `context` (what the ciphertext is, where it
   * belongs) is authenticated with the key id: opening it under any other context fails.
   */
  seal(plaintext: Uint8Array, context?: string): { keyId: string; sealed: Buffer } {
    const { id, key } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(additionalData(id, context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: id, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  open(keyId: string, sealed: Uint8Array, context?: string): Buffer {
    const key = this.byId.get(keyId);
    if (!key) throw new UnknownKeyIdError(keyId, this.ids);
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (buf.length < IV_BYTES + TAG_BYTES) throw new DecryptionError(keyId);
    const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, IV_BYTES));
    decipher.setAAD(additionalData(keyId, context));
    decipher.setAuthTag(buf.subarray(buf.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(buf.subarray(IV_BYTES, buf.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new DecryptionError(keyId);
    }
  }
}

/** The key id alone (payloads, v1 files), or the key id and the context (v2 files), never ambiguous. */
const additionalData = (keyId: string, context: string | undefined) =>
  Buffer.from(context === undefined ? keyId : `${keyId}\n${context}`, 'utf8');

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/**
 * Encrypts each whole payload (its metadata too: `encoding: json/plain` says little, but a
 * converter's metadata could say more). Decoding passes plaintext payloads through unchanged, so
 * histories written before encryption was switched on stay readable and replayable.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(readonly ring: KeyRing) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      const { keyId, sealed } = this.ring.seal(ProtoPayload.encode(p).finish());
      return {
        metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(keyId) },
        data: new Uint8Array(sealed),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (text(p.metadata?.encoding) !== ENCRYPTED_ENCODING) return p;
      const keyId = text(p.metadata?.[KEY_ID_METADATA]);
      if (!keyId) throw new Error(`an encrypted payload has no ${KEY_ID_METADATA} metadata`);
      const decoded = ProtoPayload.decode(this.ring.open(keyId, p.data ?? new Uint8Array()));
      return { metadata: decoded.metadata, data: decoded.data };
    });
  }
}

/**
 * Files at rest: one line `payrun-enc:v2:<key id>:<base64 of iv ‖ ciphertext ‖ tag>`, so JSON-lines
 * files stay line-oriented; the line is authenticated with its context (which batch, file and entry it
 * is: src/batch/store/sealing.ts), so a line copied to another place fails to open. `payrun-enc:v1:`
 * lines (no context) and plain JSON (written before encryption) are older forms: the caller decides
 * whether it still reads them (openText reads v1 and plain text; openTextIn refuses them unless asked).
 */
const V1_PREFIX = 'payrun-enc:v1:';
const V2_PREFIX = 'payrun-enc:v2:';

export type EnvelopeForm = 'plain' | 'v1' | 'v2';

export function envelopeForm(s: string): EnvelopeForm {
  return s.startsWith(V2_PREFIX) ? 'v2' : s.startsWith(V1_PREFIX) ? 'v1' : 'plain';
}

export function isSealedText(s: string): boolean {
  return envelopeForm(s) !== 'plain';
}

function sealWith(prefix: string, ring: KeyRing, plaintext: string, context?: string): string {
  const { keyId, sealed } = ring.seal(Buffer.from(plaintext, 'utf8'), context);
  return `${prefix}${keyId}:${sealed.toString('base64')}`;
}

function openEnvelope(ring: KeyRing, s: string, prefix: string, context?: string): string {
  const rest = s.slice(prefix.length).trim();
  const colon = rest.indexOf(':');
  return ring
    .open(rest.slice(0, colon), Buffer.from(rest.slice(colon + 1), 'base64'), context)
    .toString('utf8');
}

/** A v1 line, bound to no context (the reconciliation store's files). */
export const sealText = (ring: KeyRing, plaintext: string): string => sealWith(V1_PREFIX, ring, plaintext);

/** A v1 line, or plain text as it is; a v2 line needs its context (openTextIn). */
export function openText(ring: KeyRing, s: string): string {
  const form = envelopeForm(s);
  if (form === 'plain') return s;
  if (form === 'v2') throw new Error('a payrun-enc:v2 line opens only with its context');
  return openEnvelope(ring, s, V1_PREFIX);
}

/** A v2 line bound to `context`. */
export const sealTextIn = (ring: KeyRing, context: string, plaintext: string): string =>
  sealWith(V2_PREFIX, ring, plaintext, context);

/**
 * A v2 line sealed for exactly `context`, else DecryptionError. An older form (v1, plain) is read only
 * with `legacy: true`, else LegacyEnvelopeError says which form it is.
 */
export function openTextIn(ring: KeyRing, context: string, s: string, legacy = false): string {
  const form = envelopeForm(s);
  if (form === 'v2') return openEnvelope(ring, s, V2_PREFIX, context);
  if (!legacy) throw new LegacyEnvelopeError(form);
  return openText(ring, s);
}

export class LegacyEnvelopeError extends Error {
  constructor(readonly form: Exclude<EnvelopeForm, 'v2'>) {
    super(
      form === 'plain'
        ? 'written in clear (plain JSON), not sealed'
        : 'sealed without its batch and file (payrun-enc:v1)',
    );
    this.name = 'LegacyEnvelopeError';
  }
}
