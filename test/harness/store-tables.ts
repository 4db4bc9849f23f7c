/**
 * What the PostgreSQL batch store's tables hold about one batch, row by row, exactly as stored: for
 * tests that check what an operator with the database (or its backups) could read, not what payrun
 * reads back through the store.
 */
import { Client } from 'pg';
import { loadBatchStoreConfig } from '../../src/config/batch-store';

/** One stored row: its table, its `sealed` column, and the whole row as text (every column). */
export interface StoredTableRow {
  table: string;
  sealed: string;
  row: string;
}

/** The batch store's tables and how a batch's (or its file's) rows are found in each. */
const TABLES = [
  { table: 'batch_meta', key: 'batch_id' },
  { table: 'batch_chunks', key: 'batch_id' },
  { table: 'batch_outcomes', key: 'batch_id' },
  { table: 'batch_finals', key: 'batch_id' },
  { table: 'batch_files', key: 'batch_id' },
  { table: 'file_statements', key: 'file_sha256' },
] as const;

/** Every row of the configured PostgreSQL batch store about `batchId` and its file (`fileSha256`). */
export async function storedTableRows(batchId: string, fileSha256: string): Promise<StoredTableRow[]> {
  const config = loadBatchStoreConfig();
  if (config.kind !== 'postgres') throw new Error('storedTableRows reads the PostgreSQL batch store only');
  const client = new Client({ connectionString: config.url });
  await client.connect();
  try {
    const rows: StoredTableRow[] = [];
    for (const { table, key } of TABLES) {
      const r = await client.query<{ sealed: string; row: string }>(
        `SELECT t.sealed, to_jsonb(t)::text AS row FROM ${table} t WHERE t.${key} = $1`,
        [key === 'batch_id' ? batchId : fileSha256],
      );
      rows.push(...r.rows.map((x) => ({ table, ...x })));
    }
    return rows;
  } finally {
    await client.end();
  }
}
