/**
 * Owner-only files and folders (0600 / 0700) for everything payrun writes that may hold personal
 * data: the batch store, reports, done/ copies, the sandbox state, key files, the dev server's db.
 * `mode` at creation is filtered by the umask and never applies to a path that already exists, so
 * each helper also chmods: a file written once as 0644 by an older version is tightened on rewrite.
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** mkdir -p with 0700 for every folder it creates, and 0700 on `dir` itself. */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // The umask may have widened nothing (it only removes bits), but an existing folder keeps its mode.
  if (created === undefined) chmodSync(dir, PRIVATE_DIR_MODE);
}

export function writePrivateFile(file: string, data: string | Uint8Array): void {
  writeFileSync(file, data, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Temp file + rename: readers see the old or the new content, never half of it. */
export function writePrivateFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE });
  chmodSync(tmp, PRIVATE_FILE_MODE);
  renameSync(tmp, file);
}

export function appendPrivateFile(file: string, data: string): void {
  const fresh = !existsSync(file);
  appendFileSync(file, data, { mode: PRIVATE_FILE_MODE });
  if (fresh) chmodSync(file, PRIVATE_FILE_MODE);
}

export function copyPrivateFile(from: string, to: string): void {
  copyFileSync(from, to);
  chmodSync(to, PRIVATE_FILE_MODE);
}

/** Creates `file` owner-only and empty if missing (for streams opened with flags 'a'). */
export function touchPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Tightens files that exist (a db written by an older version); missing ones are ignored. */
export function tightenIfExists(...paths: string[]): void {
  for (const p of paths) if (existsSync(p)) chmodSync(p, PRIVATE_FILE_MODE);
}
