/**
 * Ed25519 keys and signatures with Node's crypto, for those who sign: the command line, the watcher, the
 * console. Workflows verify with the pure-JS verifier in workflows/shared/approval.ts; both sign and verify the
 * same bytes (statementMessage).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  statementMessage,
  type Statement,
  type SignedStatement,
} from '../../workflows/shared/approval-contract';
import { ConfigError } from '../config';

/** Someone who can sign: a person with their own key, or an authenticating service signing for them (`via`). */
export interface Signer {
  person: string;
  via?: string;
  sign(message: string): string;
}

/** `ed25519:<64 hex>`, as the policy file lists public keys. */
export function publicKeyText(key: KeyObject): string {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return `ed25519:${Buffer.from(jwk.x!, 'base64url').toString('hex')}`;
}

export function generateSigningKey(): { privateKeyPem: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKeyText(privateKey),
  };
}

export function privateKeyFromPem(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ConfigError([`${where}: not a private key in PEM (payrun keys generate writes one)`]);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ConfigError([`${where}: an ${key.asymmetricKeyType} key; payrun signs with Ed25519 keys`]);
  return key;
}

export function signerFromKey(person: string, key: KeyObject, via?: string): Signer {
  return {
    person,
    ...(via ? { via } : {}),
    sign: (message) => sign(null, Buffer.from(message, 'utf8'), key).toString('hex'),
  };
}

export function signerFromKeyFile(person: string, file: string, via?: string): Signer {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`key file ${file}: ${(err as Error).message}`]);
  }
  return signerFromKey(person, privateKeyFromPem(pem, `key file ${file}`), via);
}

type Unsigned<S extends Statement> = S extends Statement ? Omit<S, 'person' | 'at' | 'via' | 'v'> : never;

/** The statement as the signer says it now: their person id, the time, and their signature over it. */
export function signStatement<S extends Statement>(
  signer: Signer,
  body: Unsigned<S>,
  now = new Date(),
): SignedStatement<S> {
  const statement = {
    v: 1,
    ...body,
    person: signer.person,
    at: now.toISOString(),
    ...(signer.via ? { via: signer.via } : {}),
  } as unknown as S;
  return { statement, signature: signer.sign(statementMessage(statement)) };
}
