/**
 * The batch store's entries by name (store/sealing.ts binds each sealed value to one), the same in
 * the folder and the PostgreSQL store, and the one check a meta gets once opened.
 */
import type { StoreEntry } from './sealing';

/** Which batch and file an entry belongs to. */
export interface EntryOwner {
  batchId: string;
  fileSha256: string;
}

/** The meta says the file's hash, so it is bound to its batch alone; checkMetaOf ties the two. */
export const metaEntry = (batchId: string): StoreEntry => ({ batchId, name: 'meta' });
export const chunkEntry = (at: EntryOwner, index: number): StoreEntry => ({ ...at, name: `chunk/${index}` });
export const outcomeEntry = (at: EntryOwner): StoreEntry => ({ ...at, name: 'outcome' });
export const finalEntry = (at: EntryOwner): StoreEntry => ({ ...at, name: 'final' });
export const statementEntry = (fileSha256: string): StoreEntry => ({ fileSha256, name: 'statement' });
/** A piece of a kept file (PostgreSQL): the source's bytes are checked against the approved hash anyway. */
export const fileEntry = (batchId: string, kind: string, part: number): StoreEntry => ({
  batchId,
  name: `file/${kind}/${part}`,
});

/**
 * A meta read as batch `batchId`'s must say it is that batch's: its sealing binds it to the batch, and a
 * meta in an older form (plain JSON, read outside production) is held to the same.
 */
export function checkMetaOf<M extends { batchId: string }>(batchId: string, meta: M): M {
  if (meta.batchId !== batchId)
    throw new Error(
      `the batch store's meta of batch ${batchId} names batch ${meta.batchId}: not this batch's`,
    );
  return meta;
}
