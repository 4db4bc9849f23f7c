import { chmodSync, existsSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { copyPrivateFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../private-fs';

export interface BatchFolders {
  inbox: string;
  processing: string;
  done: string;
  rejected: string;
}

export function batchFolders(batchesDir: string): BatchFolders {
  const f = {
    inbox: join(batchesDir, 'inbox'),
    processing: join(batchesDir, 'processing'),
    done: join(batchesDir, 'done'),
    rejected: join(batchesDir, 'rejected'),
  };
  // Folders payrun creates are owner-only; one that already exists (an inbox shared with
  // accounting) keeps the mode its owner gave it.
  for (const dir of Object.values(f)) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  return f;
}

/** `name` in `dir`, or `stem.<tag>.ext` when a different file of that name is already there. */
export function freeName(dir: string, name: string, tag: string): string {
  if (!existsSync(join(dir, name))) return name;
  const ext = extname(name);
  return `${basename(name, ext)}.${tag}${ext}`;
}

/**
 * rename, or copy + unlink across devices (a network share mounted apart from the local disk).
 * The moved file becomes owner-only: it is a payout list (card and account numbers, INNs, names).
 */
export function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyPrivateFile(from, to);
    unlinkSync(from);
    return;
  }
  chmodSync(to, PRIVATE_FILE_MODE);
}
