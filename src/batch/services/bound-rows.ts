/**
 * The rows a batch may pay, proven from the file that was approved rather than believed from the store:
 * the worker reads the file's bytes the store keeps, checks their sha256 is the file hash the approvals
 * signed, loads them again exactly as they were submitted (the batch's load options), and checks the
 * row count and total are what the approvals signed. Only then does it compare the store's chunks with
 * those rows, row by row; a retry's rows (some rows of its first batch's file) must each be that file's
 * row of the same number, and their count and total what the retry's approvals signed. Any difference
 * refuses the whole batch, naming what changed. Done once per worker and batch (bounded cache), never
 * per payout, with no bank call: docs/batches.md, "Rows bound to the approved file".
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../../private-fs';
import { contentHash, loadBatch } from '../../csv';
import { batchDir, type StoredBatchMeta, type StoredRow } from '../store/files';
import type { BatchStore } from '../store/contract';
import { batchStoreFor } from '../store/open';
import { StoreEntryError } from '../store/sealing';
import { parseDerivedReference } from '../../domain/rules';

/** Keys in a fixed order, so the same request reads the same whichever layer built it. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A batch's rows as proven: each reference's request in canonical form, or why the batch pays nothing. */
export type BoundRows = { ok: true; byReference: Map<string, string> } | { ok: false; reason: string };

/** A mismatch found: the batch is refused with `message` (ids, row numbers, references and hashes only). */
class NotTheApprovedFile extends Error {}
const differs = (message: string): never => {
  throw new NotTheApprovedFile(message);
};

const short = (sha: string) => `${sha.slice(0, 12)}…`;

/** The approved file's accepted rows, by row number, loaded from its bytes as it was at submission. */
async function approvedFileRows(
  store: BatchStore,
  dataDir: string,
  root: StoredBatchMeta,
  signedSha256: string,
): Promise<Map<number, StoredRow['request']>> {
  const dir = batchDir(dataDir, root.batchId);
  ensurePrivateDir(join(dataDir, 'store'));
  ensurePrivateDir(dir);
  // A name of this call's own: an overlapping attempt (a retry whose predecessor still runs, another
  // worker on the same store) fetches and removes its own copy, never the one this call is reading.
  const copy = join(dir, `approved-${process.pid}-${randomBytes(4).toString('hex')}`);
  let bytes: Buffer;
  try {
    if (!(await store.fetchFile(root.batchId, 'source', copy)))
      differs(`the file of batch ${root.batchId} is not in the batch store: nothing proves its rows`);
    bytes = readFileSync(copy);
  } finally {
    rmSync(copy, { force: true });
  }
  const sha = contentHash(bytes);
  if (sha !== signedSha256)
    differs(
      `the file kept for batch ${root.batchId} is not the approved file: its sha256 is ${short(sha)}, the approvals signed ${short(signedSha256)}`,
    );
  const { stopList, ...load } = root.load;
  const loaded = loadBatch(bytes, { ...load, ...(stopList ? { stopList: new Set(stopList) } : {}) });
  if (loaded.rejected)
    differs(`the approved file of batch ${root.batchId} no longer loads with the batch's load options`);
  const accepted = new Set(loaded.accepted);
  const rows = new Map<number, StoredRow['request']>();
  for (const r of loaded.rows) if (r.request && accepted.has(r.request)) rows.set(r.row, r.request);
  const total = [...rows.values()].reduce((s, r) => s + r.amount, 0);
  if (rows.size !== root.rowCount || total !== root.totalKopecks)
    differs(
      `the approved file of batch ${root.batchId} loads as ${rows.size} rows and ${total} kopecks with the batch's load options; its approvals signed ${root.rowCount} rows and ${root.totalKopecks} kopecks`,
    );
  return rows;
}

async function prove(store: BatchStore, dataDir: string, batchId: string): Promise<BoundRows> {
  try {
    const meta = await store.readMeta(batchId);
    const rootId = meta.rootBatchId ?? batchId; // absent in metas written before retries
    const root = rootId === batchId ? meta : await store.readMeta(rootId);
    if (root.contentHash !== meta.contentHash)
      differs(
        `batch ${batchId} names file ${short(meta.contentHash)}, its first batch ${short(root.contentHash)}`,
      );
    const approved = await approvedFileRows(store, dataDir, root, meta.contentHash);
    const byReference = new Map<string, string>();
    const seen = new Set<number>();
    let total = 0;
    for (let i = 0; i < meta.chunkCount; i++)
      for (const { row, request } of await store.readChunk(batchId, i)) {
        const at = `row ${row} (reference ${request.reference}, chunk ${i}) of batch ${batchId}`;
        const expected = approved.get(row);
        if (!expected) differs(`${at} is not a row of the approved file`);
        if (seen.has(row)) differs(`${at} is stored twice`);
        // A returned row paid again runs under its derived reference (REF~r1), all else the file's; the
        // batch's activity proves the return itself before the chunk pays (activities/batch.ts).
        const derived = parseDerivedReference(request.reference)?.original === expected?.reference;
        const want = canonical(derived ? { ...expected!, reference: request.reference } : expected!);
        if (canonical(request) !== want)
          differs(
            `${at} differs from the approved file's row ${row}` +
              (expected!.reference !== request.reference ? ` (reference ${expected!.reference})` : ''),
          );
        seen.add(row);
        total += request.amount;
        byReference.set(request.reference, want);
      }
    if (seen.size !== meta.rowCount || total !== meta.totalKopecks)
      differs(
        `batch ${batchId}'s store holds ${seen.size} rows and ${total} kopecks; its approvals signed ${meta.rowCount} rows and ${meta.totalKopecks} kopecks`,
      );
    return { ok: true, byReference };
  } catch (e) {
    // Not the approved file, or an entry that does not open as itself: final. Anything else (a store
    // not answering) is thrown, and the caller's activity is tried again.
    if (e instanceof NotTheApprovedFile || e instanceof StoreEntryError)
      return { ok: false, reason: e.message };
    throw e;
  }
}

const proven = new Map<string, Promise<BoundRows>>();
const BATCHES_KEPT = 8;

/**
 * A batch's rows proven against its approved file, once per worker and batch: payouts of one batch
 * starting together share the one proof.
 */
export function boundRows(dataDir: string, batchId: string): Promise<BoundRows> {
  const key = `${dataDir}\0${batchId}`;
  let proof = proven.get(key);
  if (!proof) {
    proof = prove(batchStoreFor(dataDir), dataDir, batchId);
    proof.catch(() => proven.delete(key));
    if (proven.size >= BATCHES_KEPT) proven.delete(proven.keys().next().value!);
    proven.set(key, proof);
  }
  return proof;
}
