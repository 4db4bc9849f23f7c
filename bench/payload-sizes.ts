/**
 * The largest payloads payrun itself writes into Temporal history, built at their worst case and encrypted
 * by the real codec: what `limit.blobSize.error` (2 MiB) must stay above (docs/reliability.md, "Signal floods").
 * Run: node -r ./test/harness/ts-register.js bench/payload-sizes.ts
 */
import { withoutNotes } from '../activities/batch';
import { chunkRows, CHUNK_ROWS } from '../src/batch/store/chunks';
import { MAX_SIGNATURE_BYTES, MAX_SIGNED_WEBHOOK_BYTES } from '../workflows/shared/bank-event-contract';
import type { PayoutLookup } from '../workflows/batch/contract';
import { EVENT_IDS_KEPT } from '../workflows/payout/tracker';
import { encodedBytes, longId, maximalRequest, maximalStatus } from '../test/harness/payload-size';

const MAX_UNCHECKED_WEBHOOKS = 8; // workflows/payout/tracker.ts (not exported)

/** The largest loadBatchChunk result: as chunks were cut before (500 rows, statuses with notes), and now. */
async function largestChunk(metadataBytes: number): Promise<{ before: number; after: number }> {
  const rows = Array.from({ length: CHUNK_ROWS }, (_, row) => ({
    row,
    request: maximalRequest(row, metadataBytes),
  }));
  const lookup = (r: (typeof rows)[number]): PayoutLookup => ({
    kind: 'not_paid',
    status: maximalStatus(r.request, r.row),
  });
  const before = await encodedBytes(rows.map((r) => ({ ...r, existing: lookup(r) })));
  let after = 0;
  for (const chunk of chunkRows(rows))
    after = Math.max(
      after,
      await encodedBytes(chunk.map((r) => ({ ...r, existing: withoutNotes(lookup(r)) }))),
    );
  return { before, after };
}

async function main(): Promise<void> {
  const status = maximalStatus(maximalRequest(0), 0);
  const signed = {
    body: Buffer.alloc(MAX_SIGNED_WEBHOOK_BYTES, 1).toString('base64'),
    signature: Buffer.alloc(MAX_SIGNATURE_BYTES, 2).toString('base64'),
  };
  const tracker = {
    status,
    phase: 'processing',
    nudged: true,
    unchecked: Array.from({ length: MAX_UNCHECKED_WEBHOOKS }, () => signed),
    seenEvents: Array.from({ length: EVENT_IDS_KEPT }, (_, i) => longId(i)),
    notesDropped: 12345,
    published: [],
    stateShown: true,
  };
  const carry = {
    step: 'result',
    tracker,
    confirmDeadline: 0,
    confirmSent: true,
    told: false,
    continuations: 3,
  };
  const lines: [string, number | string][] = [
    ['payout input (maximal request)', await encodedBytes({ request: maximalRequest(0), options: {} })],
    ['payout status / result (50 notes of the longest ids)', await encodedBytes(status)],
    ['payout carry, flooded (8 unchecked webhooks, 1000 event ids, 50 notes)', await encodedBytes(carry)],
    ['  of it: 8 unchecked signed webhooks of 64 KiB', await encodedBytes(tracker.unchecked)],
    ['  of it: 1000 remembered event ids of 256', await encodedBytes(tracker.seenEvents)],
  ];
  // 3.85 KiB: the longest metadata a row may carry (METADATA_MAX characters of JSON with the reference, D24).
  for (const kb of [0, 2, 3.85]) {
    const { before, after } = await largestChunk(Math.round(kb * 1024));
    lines.push([`batch chunk, maximal rows with ${kb} KiB of metadata: before`, before]);
    lines.push([`batch chunk, maximal rows with ${kb} KiB of metadata: now`, after]);
  }
  for (const [what, bytes] of lines) console.log(`${String(bytes).padStart(10)}  ${what}`);
}

void main();
