/** Whole-batch reads over any batch store, for the callers that need every row or outcome at once. */
import type { BatchRowOutcome } from '../../../workflows/batch/contract';
import type { StoredRow } from './files';
import type { BatchStore } from './contract';

export async function readAllRows(store: BatchStore, batchId: string): Promise<StoredRow[]> {
  const meta = await store.readMeta(batchId);
  const rows: StoredRow[] = [];
  for (let i = 0; i < meta.chunkCount; i++) rows.push(...(await store.readChunk(batchId, i)));
  return rows;
}

/** One batch's outcomes by row; the last one appended per row wins. */
export async function readOutcomes(
  store: BatchStore,
  batchId: string,
): Promise<Map<number, BatchRowOutcome>> {
  const map = new Map<number, BatchRowOutcome>();
  for await (const { outcome } of store.outcomes(batchId)) map.set(outcome.row, outcome);
  return map;
}

/** A retry's view: the outcomes of every batch of its chain, later batches over earlier ones. */
export async function readMergedOutcomes(
  store: BatchStore,
  batchId: string,
): Promise<Map<number, BatchRowOutcome>> {
  const meta = await store.readMeta(batchId);
  const merged = meta.previousBatchId ? await readMergedOutcomes(store, meta.previousBatchId) : new Map();
  for (const [row, o] of await readOutcomes(store, batchId)) merged.set(row, o);
  return merged;
}
