/**
 * `payrun store seal` over the PostgreSQL store: every sealed value of the batch tables offered to
 * `reseal` with its entry, one row (or one page of appended rows) at a time, and updated in place when
 * it returns something else to keep. Nothing is held for long: any size of store in bounded memory.
 */
import type { Reseal } from './contract';
import { chunkEntry, fileEntry, finalEntry, metaEntry, outcomeEntry, statementEntry } from './entries';
import { openEntry, type StoreEntry } from './sealing';

type Query = <R extends object>(sql: string, params?: unknown[]) => Promise<{ rows: R[] }>;

const PAGE_ROWS = 2000;

/** One value, found by its key columns: offered, and written back when `reseal` returns another. */
async function resealRow(
  query: Query,
  table: string,
  key: Record<string, unknown>,
  entry: StoreEntry,
  reseal: Reseal,
): Promise<void> {
  const cols = Object.keys(key);
  const where = (from: number) => cols.map((c, i) => `${c} = $${i + from}`).join(' AND ');
  const values = Object.values(key);
  const r = await query<{ sealed: string }>(`SELECT sealed FROM ${table} WHERE ${where(1)}`, values);
  const stored = r.rows[0]?.sealed;
  const next = stored === undefined ? undefined : reseal(entry, stored);
  if (next !== undefined) await query(`UPDATE ${table} SET sealed = $1 WHERE ${where(2)}`, [next, ...values]);
}

/** Appended rows (outcomes, statements) page by page in their order. */
async function resealAppended(
  query: Query,
  table: string,
  owner: string,
  entryOf: (owner: string) => StoreEntry | undefined,
  reseal: Reseal,
): Promise<void> {
  for (let after = '0'; ;) {
    const page = await query<{ seq: string; owner: string; sealed: string }>(
      `SELECT seq, ${owner} AS owner, sealed FROM ${table} WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [after, PAGE_ROWS],
    );
    for (const row of page.rows) {
      const entry = entryOf(row.owner);
      const next = entry && reseal(entry, row.sealed);
      if (next !== undefined) await query(`UPDATE ${table} SET sealed = $1 WHERE seq = $2`, [next, row.seq]);
    }
    if (page.rows.length < PAGE_ROWS) return;
    after = page.rows[page.rows.length - 1]!.seq;
  }
}

export async function resealPostgresStore(query: Query, dataDir: string, reseal: Reseal): Promise<void> {
  const hashes = new Map<string, string>();
  const ids = await query<{ batch_id: string }>('SELECT batch_id FROM batch_meta ORDER BY batch_id');
  for (const { batch_id: batchId } of ids.rows) {
    await resealRow(query, 'batch_meta', { batch_id: batchId }, metaEntry(batchId), reseal);
    const r = await query<{ sealed: string }>('SELECT sealed FROM batch_meta WHERE batch_id = $1', [batchId]);
    try {
      const meta = openEntry<{ contentHash: string }>(dataDir, metaEntry(batchId), r.rows[0]!.sealed, true);
      hashes.set(batchId, meta.contentHash);
    } catch {
      continue; // its meta did not open (reseal counted it): its entries cannot be placed
    }
    const at = { batchId, fileSha256: hashes.get(batchId)! };
    const chunks = await query<{ chunk: number }>(
      'SELECT chunk FROM batch_chunks WHERE batch_id = $1 ORDER BY chunk',
      [batchId],
    );
    for (const { chunk } of chunks.rows)
      await resealRow(query, 'batch_chunks', { batch_id: batchId, chunk }, chunkEntry(at, chunk), reseal);
    await resealRow(query, 'batch_finals', { batch_id: batchId }, finalEntry(at), reseal);
  }
  const files = await query<{ batch_id: string; kind: string; part: number }>(
    'SELECT batch_id, kind, part FROM batch_files ORDER BY batch_id, kind, part',
  );
  for (const { batch_id: batchId, kind, part } of files.rows)
    await resealRow(
      query,
      'batch_files',
      { batch_id: batchId, kind, part },
      fileEntry(batchId, kind, part),
      reseal,
    );
  const owned = (batchId: string) => {
    const fileSha256 = hashes.get(batchId);
    return fileSha256 ? outcomeEntry({ batchId, fileSha256 }) : undefined;
  };
  await resealAppended(query, 'batch_outcomes', 'batch_id', owned, reseal);
  await resealAppended(query, 'file_statements', 'file_sha256', statementEntry, reseal);
}
