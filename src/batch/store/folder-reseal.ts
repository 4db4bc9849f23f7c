/**
 * `payrun store seal` over the folder store: every sealed file (meta.json, chunk-n.json, final.json) and
 * every line of outcomes.jsonl and statements.jsonl offered to `reseal` with its entry, and rewritten
 * atomically when it returns something else to keep.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '../../private-fs';
import type { Reseal } from './contract';
import { chunkEntry, finalEntry, metaEntry, outcomeEntry, statementEntry } from './entries';
import { openEntry, type StoreEntry } from './sealing';

function resealFile(file: string, entry: StoreEntry, reseal: Reseal): void {
  if (!existsSync(file)) return;
  const next = reseal(entry, readFileSync(file, 'utf8'));
  if (next !== undefined) writePrivateFileAtomic(file, next);
}

function resealLines(file: string, entry: StoreEntry, reseal: Reseal): void {
  if (!existsSync(file)) return;
  let changed = false;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      const next = line === '' ? undefined : reseal(entry, line);
      changed ||= next !== undefined;
      return next ?? line;
    });
  if (changed) writePrivateFileAtomic(file, lines.join('\n'));
}

export function resealFolderStore(dataDir: string, reseal: Reseal): void {
  const store = join(dataDir, 'store');
  if (!existsSync(store)) return;
  for (const batchId of readdirSync(store)
    .filter((d) => d.startsWith('batch-'))
    .sort()) {
    const dir = join(store, batchId);
    const meta = join(dir, 'meta.json');
    if (!existsSync(meta)) continue;
    resealFile(meta, metaEntry(batchId), reseal);
    let fileSha256: string;
    try {
      ({ contentHash: fileSha256 } = openEntry<{ contentHash: string }>(
        dataDir,
        metaEntry(batchId),
        readFileSync(meta, 'utf8'),
        true,
      ));
    } catch {
      continue; // its meta did not open (reseal counted it): its entries cannot be placed
    }
    const at = { batchId, fileSha256 };
    for (const name of readdirSync(dir).sort()) {
      const chunk = /^chunk-(\d+)\.json$/.exec(name);
      if (chunk) resealFile(join(dir, name), chunkEntry(at, Number(chunk[1])), reseal);
    }
    resealFile(join(dir, 'final.json'), finalEntry(at), reseal);
    resealLines(join(dir, 'outcomes.jsonl'), outcomeEntry(at), reseal);
  }
  const files = join(store, 'files');
  if (!existsSync(files)) return;
  for (const sha of readdirSync(files).filter((d) => /^[0-9a-f]{64}$/.test(d)))
    resealLines(join(files, sha, 'statements.jsonl'), statementEntry(sha), reseal);
}
