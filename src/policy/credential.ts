/**
 * Whose hand is on the command line: `PAYRUN_PERSON` with `PAYRUN_KEY_FILE` (scripts, the demo, a service
 * such as the watcher), or the credential `payrun login` stored, readable by its owner only.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadCredentialDir, loadGivenSigner, type Env } from '../config';
import { ensurePrivateDir, writePrivateFileAtomic } from '../private-fs';
import type { Policy } from './file';
import { privateKeyFromPem, publicKeyText, signerFromKey, signerFromKeyFile, type Signer } from './keys';

export function credentialDir(env?: Env): string {
  return loadCredentialDir(env);
}

const credentialFile = (env?: Env) => join(credentialDir(env), 'credential.json');

interface StoredCredential {
  person: string;
  privateKeyPem: string;
}

/** The signer for this process, or undefined when nobody has said who they are. */
export function findSigner(env?: Env): Signer | undefined {
  const given = loadGivenSigner(env);
  if (given) return signerFromKeyFile(given.person, given.keyFile);
  const file = credentialFile(env);
  if (!existsSync(file)) return undefined;
  const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredCredential;
  return signerFromKey(stored.person, privateKeyFromPem(stored.privateKeyPem, file));
}

/** The signer, or a usage error that says how to become one. */
export function requireSigner(env?: Env): Signer {
  const signer = findSigner(env);
  if (!signer)
    throw new ConfigError([
      'who is asking: nobody is signed in. Run `payrun login --person ID --key FILE` (or set PAYRUN_PERSON and PAYRUN_KEY_FILE); docs/batches.md#approval',
    ]);
  return signer;
}

/** Checks the key is one the policy lists for the person, then stores it for later commands (owner-only). */
export function login(policy: Policy, person: string, keyFile: string, env?: Env): string {
  const who = policy.view.people.find((p) => p.id === person);
  if (!who) throw new ConfigError([`--person: ${person} is not a person of the policy ${policy.path}`]);
  if (who.revokedAt) throw new ConfigError([`--person: ${person} was revoked at ${who.revokedAt}`]);
  const pem = readFileSync(keyFile, 'utf8');
  const key = privateKeyFromPem(pem, `--key ${keyFile}`);
  const pub = publicKeyText(key).slice('ed25519:'.length);
  if (!who.keys.includes(pub))
    throw new ConfigError([
      `--key: this key is not one of ${person}'s keys in ${policy.path} (its public key is ed25519:${pub})`,
    ]);
  ensurePrivateDir(credentialDir(env));
  writePrivateFileAtomic(
    credentialFile(env),
    JSON.stringify({ person, privateKeyPem: pem } satisfies StoredCredential),
  );
  return credentialFile(env);
}

export function logout(env?: Env): boolean {
  const file = credentialFile(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
