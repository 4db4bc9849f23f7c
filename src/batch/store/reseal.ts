/**
 * The migration to entries bound to their place (`payrun store seal`): every entry in an older form
 * (plain JSON, `payrun-enc:v1`) is opened and sealed again for its batch, file and position; entries
 * already in place are only checked. One that does not open is left as it is and named: the batch it
 * belongs to stays refused (nothing of it is paid) until someone looks. Sealing an old entry says nothing
 * about whether its rows are the approved file's: the worker proves that from the file itself
 * (src/batch/services/bound-rows.ts), whatever the store says.
 */
import type { BatchStore } from './contract';
import { describeEntry, isSealedInPlace, openEntry, sealEntry } from './sealing';

export interface ResealCounts {
  resealed: number;
  current: number;
  /** Entries that did not open, each named (ids and hashes, nothing personal). */
  failed: string[];
}

export async function resealStore(store: BatchStore, dataDir: string): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, current: 0, failed: [] };
  await store.resealEntries((entry, stored) => {
    const current = isSealedInPlace(stored);
    try {
      const value = openEntry<unknown>(dataDir, entry, stored, !current);
      if (current) {
        counts.current++;
        return undefined;
      }
      counts.resealed++;
      return sealEntry(dataDir, entry, value);
    } catch (e) {
      counts.failed.push(`${describeEntry(entry)}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  });
  return counts;
}
