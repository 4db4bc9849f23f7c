/**
 * A software passkey for tests: a P-256 (or Ed25519) key pair made with Node's crypto, answering a
 * statement's challenge the way an authenticator does (authenticatorData ‖ SHA-256(clientDataJSON)),
 * with every part an attacker might bend (origin, relying party, flags, counter, challenge) settable.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { PasskeyProof, Statement } from '../../workflows/shared/approval-contract';
import { statementChallenge } from '../../workflows/shared/approval-proofs';
import { rawKeyFromSpki, toBase64url, type PasskeyAlgorithm } from '../../workflows/shared/webauthn';

export const TEST_RP = { rpId: 'localhost', origin: 'http://localhost:8070' };

export interface AnswerOptions {
  origin?: string;
  rpId?: string;
  /** 0x05 by default: user present and verified. */
  flags?: number;
  /** Default: one more than the last answer's. */
  counter?: number;
  /** The statement whose challenge is signed (default: the one answered for). */
  challengeOf?: Statement;
}

export class SoftPasskey {
  readonly id = toBase64url(randomBytes(16));
  private readonly privateKey: KeyObject;
  private readonly spki: Buffer;
  counter = 0;
  /** The site this passkey was made for: what its answers name unless told otherwise. */
  rp = TEST_RP;

  constructor(readonly alg: PasskeyAlgorithm = 'es256') {
    const pair =
      alg === 'es256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    this.spki = pair.publicKey.export({ format: 'der', type: 'spki' });
  }

  /** The line an admin adds to the person's keys (the key as SPKI, as the browser gives it). */
  line(raw = false): string {
    const key = raw ? rawKeyFromSpki(this.alg, new Uint8Array(this.spki))! : new Uint8Array(this.spki);
    return `passkey:${this.alg}:${this.id}:${toBase64url(key)}`;
  }

  /** The private key as PKCS#8 in standard base64: what WebAuthn.addCredential takes to put it in a browser. */
  pkcs8(): string {
    return this.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  }

  answer(statement: Statement, o: AnswerOptions = {}): PasskeyProof {
    const counter = o.counter ?? ++this.counter;
    this.counter = Math.max(this.counter, counter);
    const authData = Buffer.alloc(37);
    createHash('sha256')
      .update(o.rpId ?? this.rp.rpId)
      .digest()
      .copy(authData, 0);
    authData[32] = o.flags ?? 0x05;
    authData.writeUInt32BE(counter, 33);
    const clientData = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: toBase64url(statementChallenge(o.challengeOf ?? statement)),
        origin: o.origin ?? this.rp.origin,
        crossOrigin: false,
      }),
    );
    const signed = Buffer.concat([authData, createHash('sha256').update(clientData).digest()]);
    const signature =
      this.alg === 'es256' ? sign('sha256', signed, this.privateKey) : sign(null, signed, this.privateKey);
    return {
      credentialId: this.id,
      authenticatorData: toBase64url(authData),
      clientDataJSON: toBase64url(clientData),
      signature: toBase64url(signature),
    };
  }
}
