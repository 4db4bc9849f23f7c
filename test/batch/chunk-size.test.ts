import { withoutNotes } from '../../activities/batch';
import { chunkRows, CHUNK_BYTES, CHUNK_ROWS } from '../../src/batch/store/chunks';
import type { PayoutLookup } from '../../workflows/batch/contract';
import { CUSTOMER_REFERENCE_MAX, METADATA_MAX, metadataChars } from '../../src/domain';
import { encodedBytes, maximalRequest, maximalStatus } from '../harness/payload-size';

/** Temporal's limit on one payload (limit.blobSize.error, the server's default and payrun's: 2 MiB). */
const BLOB_LIMIT = 2 * 1024 * 1024;
/**
 * What one `loadBatchChunk` result may take of it: well under, so no chunk comes near the limit (the worst
 * case built here is 1.05 MB: 500 maximal rows, each with an earlier status at its largest).
 */
const CHUNK_RESULT_MAX = (BLOB_LIMIT * 5) / 8;

/** What loadBatchChunk returns for a chunk whose every row's reference has an earlier payout at its largest. */
function chunkResult(rows: { row: number; request: ReturnType<typeof maximalRequest> }[]) {
  return rows.map((r) => {
    const existing: PayoutLookup = { kind: 'not_paid', status: maximalStatus(r.request, r.row) };
    return { ...r, existing: withoutNotes(existing) };
  });
}

describe('a batch chunk as the batch workflow records it stays far below the server’s payload limit', () => {
  it.each([
    ['maximal fields, no metadata', 0],
    ['maximal fields and 2 KB of metadata', 2 * 1024],
    // The longest metadata a row may carry (METADATA_MAX of JSON, D24): the note fills what the
    // customer reference and the braces leave.
    [
      'maximal fields and the longest metadata',
      METADATA_MAX - CUSTOMER_REFERENCE_MAX - '{"note":"","ref":""}'.length,
    ],
  ])('%s, every row with an earlier payout of 50 notes', async (_, metadataBytes) => {
    if (metadataBytes > 2 * 1024)
      expect(metadataChars(maximalRequest(0, metadataBytes).metadata!)).toBe(METADATA_MAX);
    const rows = Array.from({ length: 2 * CHUNK_ROWS }, (_, row) => ({
      row,
      request: maximalRequest(row, metadataBytes),
    }));
    const chunks = chunkRows(rows);
    expect(chunks.flat()).toEqual(rows); // every row, once, in order
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(CHUNK_ROWS);
      expect(await encodedBytes(chunkResult(chunk))).toBeLessThan(CHUNK_RESULT_MAX);
    }
  });

  it('the earlier payout’s notes are left out, and nothing else of its status', () => {
    const status = maximalStatus(maximalRequest(1), 1);
    const { notes, ...rest } = status;
    expect(notes.length).toBeGreaterThan(0);
    expect(withoutNotes({ kind: 'paid', status })).toEqual({ kind: 'paid', status: { ...rest, notes: [] } });
    expect(withoutNotes({ kind: 'running' })).toEqual({ kind: 'running' });
    expect(withoutNotes({ kind: 'needs_attention', closeStatus: 'terminated', reason: 'x' })).toEqual({
      kind: 'needs_attention',
      closeStatus: 'terminated',
      reason: 'x',
    });
  });

  it('cuts by rows when rows are small and by bytes when they are large; a row above the bound is a chunk alone', () => {
    const small = Array.from({ length: 1_234 }, (_, row) => ({ row, pad: 'x' }));
    expect(chunkRows(small).map((c) => c.length)).toEqual([CHUNK_ROWS, CHUNK_ROWS, 234]);
    const big = Array.from({ length: 5 }, (_, row) => ({ row, pad: 'x'.repeat(CHUNK_BYTES / 2) }));
    expect(chunkRows(big).map((c) => c.length)).toEqual([1, 1, 1, 1, 1]);
    const third = Array.from({ length: 7 }, (_, row) => ({ row, pad: 'x'.repeat(CHUNK_BYTES / 3 - 100) }));
    expect(chunkRows(third).map((c) => c.length)).toEqual([3, 3, 1]);
    const huge = [{ row: 0, pad: 'x'.repeat(CHUNK_BYTES * 2) }, { row: 1 }];
    expect(chunkRows(huge).map((c) => c.length)).toEqual([1, 1]);
    expect(chunkRows([])).toEqual([]);
  });
});
