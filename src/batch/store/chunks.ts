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

/**
 * Cuts rows into chunks as they come, for a file read a row at a time: push() answers a chunk when
 * the row would not fit in the current one, end() the last. The same cuts as chunkRows.
 */
export class ChunkCutter<Row> {
  private current: Row[] = [];
  private bytes = 0;

  push(row: Row): Row[] | undefined {
    const size = Buffer.byteLength(JSON.stringify(row));
    let full: Row[] | undefined;
    if (this.current.length > 0 && (this.current.length >= CHUNK_ROWS || this.bytes + size > CHUNK_BYTES)) {
      full = this.current;
      this.current = [];
      this.bytes = 0;
    }
    this.current.push(row);
    this.bytes += size;
    return full;
  }

  end(): Row[] | undefined {
    const last = this.current.length > 0 ? this.current : undefined;
    this.current = [];
    this.bytes = 0;
    return last;
  }
}

/** Consecutive rows, in order, in chunks of at most CHUNK_ROWS rows and CHUNK_BYTES bytes. */
export function chunkRows<Row>(rows: readonly Row[]): Row[][] {
  const cutter = new ChunkCutter<Row>();
  const chunks: Row[][] = [];
  for (const row of rows) {
    const full = cutter.push(row);
    if (full) chunks.push(full);
  }
  const last = cutter.end();
  if (last) chunks.push(last);
  return chunks;
}
