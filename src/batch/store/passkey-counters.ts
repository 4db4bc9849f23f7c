/**
 * The folder store's passkey counters: under `<dataDir>/store/passkeys/<sha256 of the credential id>/`,
 * one empty file per accepted counter. Exclusive creation makes "this counter, once" atomic on the
 * host, so the same assertion sent twice at once is accepted once.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../private-fs';

const dirOf = (dataDir: string, credentialId: string) =>
  join(dataDir, 'store', 'passkeys', createHash('sha256').update(credentialId).digest('hex'));

function highest(dir: string): number | undefined {
  if (!existsSync(dir)) return undefined;
  const seen = readdirSync(dir)
    .filter((n) => /^\d{10}$/.test(n))
    .map(Number);
  return seen.length > 0 ? Math.max(...seen) : undefined;
}

export function readPasskeyCounters(dataDir: string, ids: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of ids) {
    const n = highest(dirOf(dataDir, id));
    if (n !== undefined) out[id] = n;
  }
  return out;
}

export function advancePasskeyCounter(dataDir: string, id: string, counter: number): boolean {
  const dir = dirOf(dataDir, id);
  const last = highest(dir);
  if (last !== undefined && counter <= last) return false;
  for (const d of [join(dataDir, 'store'), join(dataDir, 'store', 'passkeys'), dir]) ensurePrivateDir(d);
  try {
    closeSync(openSync(join(dir, String(counter).padStart(10, '0')), 'wx', PRIVATE_FILE_MODE));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
