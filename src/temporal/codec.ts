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

  /** iv ‖ ciphertext ‖ tag, encrypted with the current key. */
  seal(plaintext: Uint8Array): { keyId: string; sealed: Buffer } {
    const { id, key } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: id, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  open(keyId: string, sealed: Uint8Array): Buffer {
    const key = this.byId.get(keyId);
    if (!key) throw new UnknownKeyIdError(keyId, this.ids);
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (buf.length < IV_BYTES + TAG_BYTES) throw new DecryptionError(keyId);
    const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(keyId, 'utf8'));
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
 * Files at rest: one line `payrun-enc:v1:<key id>:<base64 of iv ‖ ciphertext ‖ tag>`, so JSON-lines
 * files stay line-oriented. Plain JSON (a store written before encryption) still reads.
 */
const ENVELOPE_PREFIX = 'payrun-enc:v1:';

export function sealText(ring: KeyRing, plaintext: string): string {
  const { keyId, sealed } = ring.seal(Buffer.from(plaintext, 'utf8'));
  return `${ENVELOPE_PREFIX}${keyId}:${sealed.toString('base64')}`;
}

export function isSealedText(s: string): boolean {
  return s.startsWith(ENVELOPE_PREFIX);
}

export function openText(ring: KeyRing, s: string): string {
  if (!isSealedText(s)) return s;
  const rest = s.slice(ENVELOPE_PREFIX.length).trim();
  const colon = rest.indexOf(':');
  return ring.open(rest.slice(0, colon), Buffer.from(rest.slice(colon + 1), 'base64')).toString('utf8');
}
