/**
 * How a batch's rows are cut into the store's chunks. Each chunk becomes one activity result in the batch
 * workflow's history (`loadBatchChunk`: the rows, each with its earlier payout's status), and Temporal
 * refuses a payload above `limit.blobSize.error` (2 MiB): the batch could not get past a chunk
 * above it. So a chunk is bounded by bytes as well as by rows.
 */
/** At most this many rows a chunk. */
export const CHUNK_ROWS = 500;
/**
 * At most this many bytes of rows (as JSON) a chunk, unless one row alone is larger. With each row's
 * earlier status (without its notes: activities/batch.ts) a chunk's result stays at most about 1 MiB,
 * half the blob limit: test/batch/chunk-size.test.ts builds the worst case, bench/payload-sizes.ts prints it.
 */
export const CHUNK_BYTES = 256 * 1024;

/** Consecutive rows, in order, in chunks of at most CHUNK_ROWS rows and CHUNK_BYTES bytes. */
export function chunkRows<Row>(rows: readonly Row[]): Row[][] {
  const chunks: Row[][] = [];
  let current: Row[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row));
    if (current.length > 0 && (current.length >= CHUNK_ROWS || bytes + size > CHUNK_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
