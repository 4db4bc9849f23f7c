/**
 * The passkey check against assertions made the way an authenticator makes them: Node's crypto signs
 * authenticatorData ‖ SHA-256(clientDataJSON) with a P-256 or Ed25519 key, as a browser's passkey does.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  fromBase64url,
  rawKeyFromSpki,
  toBase64url,
  verifyPasskeyAssertion,
  type PasskeyAlgorithm,
  type PasskeyAssertion,
  type PasskeyCredential,
  type PasskeyExpectation,
} from '../../workflows/shared/webauthn';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest();
const ORIGIN = 'https://payrun.example.ru';
const RP_ID = 'payrun.example.ru';

interface Authenticator {
  credential: PasskeyCredential;
  privateKey: KeyObject;
}

function authenticator(alg: PasskeyAlgorithm, id = 'cred-' + alg): Authenticator {
  const { publicKey, privateKey } =
    alg === 'es256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const raw = rawKeyFromSpki(alg, new Uint8Array(spki));
  if (!raw) throw new Error('no raw key');
  return { credential: { id: toBase64url(Buffer.from(id)), alg, publicKey: raw }, privateKey };
}

interface Made {
  challenge?: Buffer;
  origin?: string;
  rpId?: string;
  flags?: number;
  counter?: number;
  type?: string;
  crossOrigin?: boolean;
}

function assert(a: Authenticator, made: Made = {}): PasskeyAssertion {
  const authData = Buffer.alloc(37);
  sha(made.rpId ?? RP_ID).copy(authData, 0);
  authData[32] = made.flags ?? 0x05;
  authData.writeUInt32BE(made.counter ?? 7, 33);
  const clientData = Buffer.from(
    JSON.stringify({
      type: made.type ?? 'webauthn.get',
      challenge: toBase64url(made.challenge ?? CHALLENGE),
      origin: made.origin ?? ORIGIN,
      crossOrigin: made.crossOrigin ?? false,
    }),
  );
  const signed = Buffer.concat([authData, sha(clientData)]);
  const signature =
    a.credential.alg === 'es256' ? sign('sha256', signed, a.privateKey) : sign(null, signed, a.privateKey);
  return {
    credentialId: a.credential.id,
    authenticatorData: toBase64url(authData),
    clientDataJSON: toBase64url(clientData),
    signature: toBase64url(signature),
  };
}

const CHALLENGE = sha('statement: approve batch-0123456789abcdef');
const expect_ = (over: Partial<PasskeyExpectation> = {}): PasskeyExpectation => ({
  challenge: CHALLENGE,
  origin: ORIGIN,
  rpId: RP_ID,
  ...over,
});

describe.each(['es256', 'eddsa'] as const)('a %s passkey', (alg) => {
  const a = authenticator(alg);
  const reasonOf = (assertion: PasskeyAssertion, exp = expect_(), cred = a.credential) => {
    const r = verifyPasskeyAssertion(assertion, cred, exp);
    return r.ok ? 'ok' : r.reason;
  };

  test('an assertion of this statement by this credential, user verified, passes with its counter', () => {
    expect(
      verifyPasskeyAssertion(assert(a, { counter: 42 }), a.credential, expect_({ lastCounter: 41 })),
    ).toEqual({
      ok: true,
      counter: 42,
    });
  });

  test('another challenge, origin or relying party is refused', () => {
    expect(reasonOf(assert(a, { challenge: sha('another batch') }))).toMatch(/another challenge/);
    expect(reasonOf(assert(a, { origin: 'https://evil.example' }))).toMatch(/another origin/);
    expect(reasonOf(assert(a, { rpId: 'evil.example' }))).toMatch(/another relying party/);
    expect(reasonOf(assert(a, { crossOrigin: true }))).toMatch(/another site/);
    expect(reasonOf(assert(a, { type: 'webauthn.create' }))).toMatch(/not an assertion/);
  });

  test('user verification off, or no user present, is refused', () => {
    expect(reasonOf(assert(a, { flags: 0x01 }))).toMatch(/did not verify its user/);
    expect(reasonOf(assert(a, { flags: 0x04 }))).toMatch(/no user present/);
  });

  test('a counter that repeats or goes back is refused; two zeros are an authenticator without one', () => {
    expect(reasonOf(assert(a, { counter: 7 }), expect_({ lastCounter: 7 }))).toMatch(
      /counter went back or repeated/,
    );
    expect(reasonOf(assert(a, { counter: 3 }), expect_({ lastCounter: 7 }))).toMatch(/counter went back/);
    expect(reasonOf(assert(a, { counter: 0 }), expect_({ lastCounter: 0 }))).toBe('ok');
    expect(reasonOf(assert(a, { counter: 0xffffffff }), expect_({ lastCounter: 5 }))).toBe('ok');
  });

  test('one byte changed anywhere is refused', () => {
    const good = assert(a);
    const flip = (b64: string, at: number) => {
      const bytes = fromBase64url(b64)!;
      bytes[at] = bytes[at]! ^ 0x01;
      return toBase64url(bytes);
    };
    // The counter's last byte: still user verified, same relying party, but not what was signed.
    expect(reasonOf({ ...good, authenticatorData: flip(good.authenticatorData, 36) })).toMatch(
      /does not verify/,
    );
    const client = fromBase64url(good.clientDataJSON)!;
    const text = Buffer.from(client).toString('utf8').replace('"crossOrigin":false', '"crossOrigin":false ');
    expect(reasonOf({ ...good, clientDataJSON: toBase64url(Buffer.from(text)) })).toMatch(/does not verify/);
    expect(reasonOf({ ...good, signature: flip(good.signature, 10) })).toMatch(/does not verify/);
  });

  test('a credential not the listed one, or a signature by another key, is refused', () => {
    const other = authenticator(alg, 'cred-other');
    expect(reasonOf(assert(other))).toMatch(/not the one the policy lists/);
    const forged = { ...assert(other), credentialId: a.credential.id };
    expect(reasonOf(forged)).toMatch(/does not verify/);
  });

  test('malformed parts are refused, not thrown', () => {
    expect(reasonOf({ ...assert(a), signature: 'not base64url!' })).toMatch(/not base64url/);
    expect(reasonOf({ ...assert(a), authenticatorData: 'AAAA' })).toMatch(/too short/);
    expect(reasonOf({ ...assert(a), clientDataJSON: toBase64url(Buffer.from('{not json')) })).toMatch(
      /not JSON/,
    );
    expect(reasonOf({ ...assert(a), clientDataJSON: toBase64url(Buffer.from([0xff, 0xfe])) })).toMatch(
      /not JSON|not an assertion/,
    );
  });
});

test('base64url round-trips every length and refuses other alphabets', () => {
  for (let n = 0; n < 40; n++) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 37 + n) & 0xff);
    const text = toBase64url(bytes);
    expect(text).toBe(Buffer.from(bytes).toString('base64url'));
    expect(fromBase64url(text)).toEqual(bytes);
  }
  expect(fromBase64url('ab+/')).toBeUndefined();
  expect(fromBase64url('a')).toBeUndefined();
});

test('only a P-256 or Ed25519 public key is taken from a browser’s SPKI', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
    format: 'der',
    type: 'spki',
  });
  expect(rawKeyFromSpki('es256', new Uint8Array(rsa))).toBeUndefined();
  const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  expect(rawKeyFromSpki('es256', new Uint8Array(ed))).toBeUndefined();
  expect(rawKeyFromSpki('eddsa', new Uint8Array(ed))?.length).toBe(32);
});
