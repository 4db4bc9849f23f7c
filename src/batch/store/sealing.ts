/**
 * How the batch store seals what it keeps, in both stores (folder and PostgreSQL): each entry with the
 * payload keys, and authenticated with what it is — the batch, the file's sha256 and which entry (meta,
 * chunk n, an outcome, the final, a statement, a piece of a kept file). A chunk copied from another
 * batch or moved to another position fails to open, so only a writer who holds the payload keys can
 * put anything in a batch's place. Entries in an older form (plain JSON, `payrun-enc:v1` without
 * context) still read outside production; production refuses them, naming the batch and the entry,
 * until `payrun store seal` seals them again (docs/batches.md, "The batch store").
 */
import { isProduction } from '../../config';
import {
  envelopeForm,
  type KeyRing,
  LegacyEnvelopeError,
  openTextIn,
  sealTextIn,
  storeKeyRing,
} from '../../temporal';

/** Which entry: a batch's meta, chunk, outcome or final, a file's statement, a piece of a kept file. */
export interface StoreEntry {
  /** Absent only for a file's statements (they belong to the file, whichever batch of it they name). */
  batchId?: string;
  /** Absent only for a batch's meta (it says the hash) and its kept files (their bytes are the hash). */
  fileSha256?: string;
  /** `meta`, `chunk/<n>`, `outcome`, `final`, `statement`, `file/<kind>/<part>`. */
  name: string;
}

export const entryContext = ({ batchId, fileSha256, name }: StoreEntry): string =>
  `payrun batch store\nbatch ${batchId ?? '-'}\nfile ${fileSha256 ?? '-'}\nentry ${name}`;

/** Where an entry is, for messages: no personal data (ids and hashes only). */
export const describeEntry = ({ batchId, fileSha256, name }: StoreEntry): string =>
  `entry "${name}" of ${batchId ? `batch ${batchId}` : `file ${fileSha256?.slice(0, 12)}…`}`;

const rings = new Map<string, KeyRing>();
/** The keys `dataDir`'s processes use (configured keys first): the PostgreSQL store's too. */
export function storeRing(dataDir: string): KeyRing {
  let r = rings.get(dataDir);
  if (!r) {
    r = storeKeyRing(dataDir);
    rings.set(dataDir, r);
  }
  return r;
}

/** An entry that does not open as itself: sealed for another place, altered, or in a refused older form. */
export class StoreEntryError extends Error {
  constructor(
    readonly entry: StoreEntry,
    why: string,
  ) {
    super(`the batch store's ${describeEntry(entry)} ${why}`);
    this.name = 'StoreEntryError';
  }
}

export const sealEntry = (dataDir: string, entry: StoreEntry, value: unknown): string =>
  sealTextIn(storeRing(dataDir), entryContext(entry), JSON.stringify(value));

/**
 * The entry's value. `legacy` reads the older forms: by default everywhere but in production
 * (NODE_ENV=production or BANK_ENV=live); the migration passes true.
 */
export function openEntry<T>(dataDir: string, entry: StoreEntry, text: string, legacy = !isProduction()): T {
  let clear: string;
  try {
    clear = openTextIn(storeRing(dataDir), entryContext(entry), text, legacy);
  } catch (e) {
    if (e instanceof LegacyEnvelopeError)
      throw new StoreEntryError(entry, `is ${e.message}: refused in production; run \`payrun store seal\``);
    if (e instanceof Error && e.name === 'DecryptionError')
      throw new StoreEntryError(
        entry,
        'does not open as itself: sealed for another batch, file or position, or altered',
      );
    throw e;
  }
  return JSON.parse(clear) as T;
}

/** Whether an entry is already in the current form (the migration skips it). */
export const isSealedInPlace = (text: string): boolean => envelopeForm(text) === 'v2';
