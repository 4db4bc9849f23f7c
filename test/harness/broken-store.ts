/**
 * Breaks a batch's stored outcomes the way a damaged store would, in whichever store this run uses
 * (PAYRUN_BATCH_STORE): a line that is no outcome, appended after the batch's real ones.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadBatchStoreConfig } from '../../src/config/batch-store';
import { batchDir } from '../../src/batch/store/files';

const NOT_AN_OUTCOME = 'not an outcome';

export async function breakOutcomes(dataDir: string, batchId: string): Promise<void> {
  const config = loadBatchStoreConfig();
  if (config.kind === 'folder') {
    appendFileSync(join(batchDir(dataDir, batchId), 'outcomes.jsonl'), `${NOT_AN_OUTCOME}\n`);
    return;
  }
  const client = new Client({ connectionString: config.url });
  await client.connect();
  try {
    await client.query('INSERT INTO batch_outcomes (batch_id, sealed) VALUES ($1, $2)', [
      batchId,
      NOT_AN_OUTCOME,
    ]);
  } finally {
    await client.end();
  }
}
