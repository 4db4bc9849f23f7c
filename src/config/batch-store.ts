import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './core';

/**
 * Which batch store this process uses. Every process that touches batches (workers, the inbox
 * watcher, the console, the command line) must use the same one.
 * - `folder` (the default): `<PAYRUN_DATA_DIR>/store/`, for `make demo`, tests and one host.
 * - `postgres`: payrun's own PostgreSQL database, shared by processes on any number of hosts.
 *   PAYRUN_BATCH_STORE_URL (or PAYRUN_BATCH_STORE_URL_FILE, a secret file) is its connection URL;
 *   it holds a password, so it is never logged: `describe` names the host and database only.
 */
export type BatchStoreConfig = { kind: 'folder' } | { kind: 'postgres'; url: string; describe: string };

export const BATCH_STORE_KINDS = ['folder', 'postgres'] as const;

export function loadBatchStoreConfig(env: Env = process.env): BatchStoreConfig {
  const kind = env.PAYRUN_BATCH_STORE || 'folder';
  if (kind === 'folder') return { kind };
  if (kind !== 'postgres')
    throw new ConfigError([
      `PAYRUN_BATCH_STORE: "${kind}" is not a batch store; use one of ${BATCH_STORE_KINDS.join(', ')}`,
    ]);
  const url = storeUrl(env);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError([
      'PAYRUN_BATCH_STORE_URL: not a URL (postgres://user:password@host:port/database)',
    ]);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new ConfigError([
      `PAYRUN_BATCH_STORE_URL: must start with postgres:// (it starts with ${parsed.protocol}//)`,
    ]);
  const database = parsed.pathname.replace(/^\//, '');
  if (!database) throw new ConfigError(['PAYRUN_BATCH_STORE_URL: names no database (…/payrun at its end)']);
  return { kind, url, describe: `PostgreSQL database ${database} on ${parsed.host}` };
}

function storeUrl(env: Env): string {
  const inline = env.PAYRUN_BATCH_STORE_URL || undefined;
  const file = env.PAYRUN_BATCH_STORE_URL_FILE || undefined;
  if (inline && file)
    throw new ConfigError(['PAYRUN_BATCH_STORE_URL and PAYRUN_BATCH_STORE_URL_FILE: set one, not both']);
  if (inline) return inline;
  if (!file)
    throw new ConfigError([
      'PAYRUN_BATCH_STORE_URL: required with PAYRUN_BATCH_STORE=postgres (or PAYRUN_BATCH_STORE_URL_FILE)',
    ]);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError([`PAYRUN_BATCH_STORE_URL_FILE: cannot read ${file} (${(err as Error).message})`]);
  }
}
