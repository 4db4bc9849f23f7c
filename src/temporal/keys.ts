import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  envWith,
  loadPayloadKeysConfig,
  parsePayloadKeys,
  type Env,
  type PayloadKey,
} from '../config';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { KeyRing } from './codec';

/** Where dev and test processes keep their generated key when no keys are configured. */
export function devKeyFile(dataDir: string): string {
  return join(resolve(dataDir), 'keys', 'payload-keys');
}

/**
 * The payload keys of this process. Configured keys win. Without them production refuses to start
 * (PII would otherwise be written in plaintext, or under a key nobody can find again); dev and tests
 * share one generated key in `<dataDir>/keys/payload-keys` (0600), created by whichever process
 * needs it first.
 */
export function resolvePayloadKeys(env?: Env): PayloadKey[] {
  const config = loadPayloadKeysConfig(env);
  if (config.keys) return config.keys;
  if (config.production)
    throw new ConfigError([
      'PAYRUN_PAYLOAD_KEYS or PAYRUN_PAYLOAD_KEYS_FILE: required in production (NODE_ENV=production or ' +
        'BANK_ENV=live): the keys that encrypt personal data in Temporal and the batch store ' +
        '(id:<base64 of 32 bytes>, e.g. k1:$(openssl rand -base64 32))',
    ]);
  return ensureDevKeyFile(config.dataDir);
}

export function ensureDevKeyFile(dataDir: string): PayloadKey[] {
  const file = devKeyFile(dataDir);
  if (!existsSync(file)) {
    ensurePrivateDir(join(resolve(dataDir), 'keys'));
    const tmp = `${file}.${process.pid}.tmp`;
    writePrivateFile(tmp, `dev-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}\n`);
    // link() fails if another process created the file first: both then read the same key.
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  return parsePayloadKeys(readFileSync(file, 'utf8'), file);
}

export function loadKeyRing(env?: Env): KeyRing {
  return new KeyRing(resolvePayloadKeys(env));
}

/**
 * The key ring of a store kept in `dataDir` (the batch store, the reconciliation store): the configured
 * keys, else the dev key file of that folder rather than of PAYRUN_DATA_DIR.
 */
export function storeKeyRing(dataDir: string): KeyRing {
  return loadKeyRing(envWith({ PAYRUN_DATA_DIR: dataDir }));
}
