/**
 * What an insider who can write the batch store (not the payload keys) can do to a batch's chunk, in
 * whichever store this run uses (PAYRUN_BATCH_STORE): read it exactly as stored, and put other text in
 * its place (plain JSON, or another entry's sealed text).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadBatchStoreConfig } from '../../src/config/batch-store';
import { batchDir } from '../../src/batch/store/files';

const chunkFile = (dataDir: string, batchId: string, index: number) =>
  join(batchDir(dataDir, batchId), `chunk-${String(index).padStart(5, '0')}.json`);

async function onDatabase<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function readRawChunk(dataDir: string, batchId: string, index: number): Promise<string> {
  const config = loadBatchStoreConfig();
  if (config.kind === 'folder') return readFileSync(chunkFile(dataDir, batchId, index), 'utf8');
  return onDatabase(config.url, async (c) => {
    const r = await c.query<{ sealed: string }>(
      'SELECT sealed FROM batch_chunks WHERE batch_id = $1 AND chunk = $2',
      [batchId, index],
    );
    return r.rows[0]!.sealed;
  });
}

export async function writeRawChunk(dataDir: string, batchId: string, index: number, text: string) {
  const config = loadBatchStoreConfig();
  if (config.kind === 'folder') return writeFileSync(chunkFile(dataDir, batchId, index), text);
  await onDatabase(config.url, (c) =>
    c.query('UPDATE batch_chunks SET sealed = $1 WHERE batch_id = $2 AND chunk = $3', [text, batchId, index]),
  );
}
