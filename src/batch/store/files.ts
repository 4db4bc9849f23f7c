/**
 * The batch store: `<dataDir>/store/<batchId>/` with meta.json, the valid rows in JSON chunks and the
 * rows' outcomes as JSON lines. The submitter writes it before the batch workflow starts; the
 * workflow never holds more than one chunk of rows, and no row's result, in its history.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendPrivateFile, ensurePrivateDir, writePrivateFileAtomic } from '../../private-fs';
import { isSealedText, openText, sealText } from '../../temporal';
import type { LoadOptions } from '../../csv/types';
import { isBatchId, type PayoutRequest } from '../../domain';
import type { SignedStatement } from '../../../workflows/shared/approval-contract';
import type { BatchFinal, BatchMetaView, BatchRowOutcome } from '../../../workflows/batch/contract';

import { ChunkCutter, CHUNK_ROWS, chunkRows } from './chunks';
import { checkMetaOf, chunkEntry, finalEntry, metaEntry, outcomeEntry, statementEntry } from './entries';
import { openEntry, sealEntry, storeRing, type StoreEntry } from './sealing';

export { CHUNK_ROWS };

export interface StoredRow {
  row: number;
  request: PayoutRequest;
}

export interface StoredBatchMeta extends Omit<BatchMetaView, 'fileSha256'> {
  batchId: string;
  contentHash: string;
  /** The file while it is paid (processing/), or the first batch's file in done/ for a retry. */
  sourcePath: string;
  doneDir: string;
  /** Exactly how the file was loaded, so the report reads it the same way. */
  load: Omit<LoadOptions, 'stopList'> & { stopList?: string[] };
  /** At most this many rows a chunk (chunks are bounded by bytes too: store/chunks.ts). */
  chunkSize: number;
  submittedAt: string;
  /** Report files are `<reportName>.report.csv` and `<reportName>.summary.txt` in doneDir. */
  reportName: string;
  /** The file's name in doneDir once paid (absent for a retry: its file is already there). */
  doneName?: string;
  /** For a retry: the batch whose outcomes this one starts from, and the first batch of the chain. */
  previousBatchId?: string;
  rootBatchId: string;
}

/**
 * A batch's rows written as a file is read (submit streams it): each chunk sealed as it fills, the meta
 * last. Until finish() the batch is not complete (no meta), so nobody reads its chunks.
 */
export interface BatchWriter {
  add(row: StoredRow): Promise<void>;
  /** Writes the last chunk and the meta: the batch is complete. */
  finish(meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>): Promise<StoredBatchMeta>;
  /** Drops what was written (the file was refused); a batch already complete keeps its meta. */
  abandon(): Promise<void>;
}

export function checkBatchId(batchId: string): string {
  if (!isBatchId(batchId)) throw new Error(`"${batchId}" is not a batch id (batch-<16 hex>[-retry-<n>])`);
  return batchId;
}

export function batchDir(dataDir: string, batchId: string): string {
  return join(dataDir, 'store', checkBatchId(batchId));
}

/**
 * Every store file is sealed with the payload keys (the same AES-GCM as Temporal payloads) and bound to
 * its batch, file and place (store/sealing.ts): chunks hold card, account and phone numbers, INNs and
 * names; meta.json the stop list. Keys come from the same configuration as the process's Temporal keys;
 * the dev key file of `dataDir` otherwise.
 */
/** Sealed with the keys `dataDir`'s processes use, bound to no place: the reconciliation store's files. */
export const sealJson = (dataDir: string, value: unknown) =>
  sealText(storeRing(dataDir), JSON.stringify(value));
export const openJson = <T>(dataDir: string, text: string): T =>
  JSON.parse(isSealedText(text) ? openText(storeRing(dataDir), text) : text) as T;

const writeEntry = (dataDir: string, file: string, entry: StoreEntry, value: unknown) =>
  writePrivateFileAtomic(file, sealEntry(dataDir, entry, value));
const readEntry = <T>(dataDir: string, file: string, entry: StoreEntry): T =>
  openEntry<T>(dataDir, entry, readFileSync(file, 'utf8'));
const chunkFile = (dir: string, index: number) => join(dir, `chunk-${String(index).padStart(5, '0')}.json`);

/** A batch's file hash, which its entries are bound to: its meta's, read once per process. */
const hashes = new Map<string, string>();
export function fileHashOf(dataDir: string, batchId: string): string {
  const key = `${dataDir}\0${batchId}`;
  let hash = hashes.get(key);
  if (!hash) {
    hash = readMeta(dataDir, batchId).contentHash;
    hashes.set(key, hash);
  }
  return hash;
}

export function batchExists(dataDir: string, batchId: string): boolean {
  return existsSync(join(batchDir(dataDir, batchId), 'meta.json'));
}

/** Chunks first, meta.json last: a batch with a meta file is complete. */
export function writeBatch(
  dataDir: string,
  meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>,
  rows: StoredRow[],
) {
  const dir = batchDir(dataDir, meta.batchId);
  ensurePrivateDir(dataDir);
  ensurePrivateDir(join(dataDir, 'store'));
  ensurePrivateDir(dir);
  const chunks = chunkRows(rows);
  const at = { batchId: meta.batchId, fileSha256: meta.contentHash };
  chunks.forEach((chunk, i) => writeEntry(dataDir, chunkFile(dir, i), chunkEntry(at, i), chunk));
  const full: StoredBatchMeta = { ...meta, chunkCount: chunks.length, chunkSize: CHUNK_ROWS };
  writeEntry(dataDir, join(dir, 'meta.json'), metaEntry(meta.batchId), full);
  return full;
}

/** writeBatch as the rows come: each chunk's file written (sealed) as it fills, meta.json last. */
export function beginBatch(dataDir: string, batchId: string, fileSha256: string): BatchWriter {
  const dir = batchDir(dataDir, batchId);
  ensurePrivateDir(dataDir);
  ensurePrivateDir(join(dataDir, 'store'));
  ensurePrivateDir(dir);
  const at = { batchId, fileSha256 };
  const cutter = new ChunkCutter<StoredRow>();
  let written = 0;
  const write = (chunk: StoredRow[] | undefined): void => {
    if (!chunk) return;
    writeEntry(dataDir, chunkFile(dir, written), chunkEntry(at, written), chunk);
    written++;
  };
  return {
    async add(row) {
      write(cutter.push(row));
    },
    async finish(meta) {
      write(cutter.end());
      const full: StoredBatchMeta = { ...meta, chunkCount: written, chunkSize: CHUNK_ROWS };
      writeEntry(dataDir, join(dir, 'meta.json'), metaEntry(batchId), full);
      return full;
    },
    async abandon() {
      if (existsSync(join(dir, 'meta.json'))) return;
      for (let i = 0; i < written; i++) rmSync(chunkFile(dir, i), { force: true });
      if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function readMeta(dataDir: string, batchId: string): StoredBatchMeta {
  const file = join(batchDir(dataDir, batchId), 'meta.json');
  if (!existsSync(file))
    throw new Error(`batch ${batchId} is not in the batch store ${join(dataDir, 'store')}`);
  return checkMetaOf(batchId, readEntry<StoredBatchMeta>(dataDir, file, metaEntry(batchId)));
}

export function readChunk(dataDir: string, batchId: string, index: number): StoredRow[] {
  const at = { batchId, fileSha256: fileHashOf(dataDir, batchId) };
  return readEntry<StoredRow[]>(dataDir, chunkFile(batchDir(dataDir, batchId), index), chunkEntry(at, index));
}

export function readAllRows(dataDir: string, batchId: string): StoredRow[] {
  const meta = readMeta(dataDir, batchId);
  const rows: StoredRow[] = [];
  for (let i = 0; i < meta.chunkCount; i++) rows.push(...readChunk(dataDir, batchId, i));
  return rows;
}

/** Appends outcomes; an activity retried after a lost answer appends twice, and the last line per row wins. */
export function appendOutcomes(dataDir: string, batchId: string, outcomes: BatchRowOutcome[]): void {
  if (outcomes.length === 0) return;
  const file = join(batchDir(dataDir, batchId), 'outcomes.jsonl');
  const entry = outcomeEntry({ batchId, fileSha256: fileHashOf(dataDir, batchId) });
  appendPrivateFile(file, outcomes.map((o) => sealEntry(dataDir, entry, o)).join('\n') + '\n');
}

export function readOutcomes(dataDir: string, batchId: string): Map<number, BatchRowOutcome> {
  const file = join(batchDir(dataDir, batchId), 'outcomes.jsonl');
  const map = new Map<number, BatchRowOutcome>();
  if (!existsSync(file)) return map;
  const entry = outcomeEntry({ batchId, fileSha256: fileHashOf(dataDir, batchId) });
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const o = openEntry<BatchRowOutcome>(dataDir, entry, line);
    map.set(o.row, o);
  }
  return map;
}

/** A retry's view: the outcomes of every batch of its chain, later batches over earlier ones. */
export function readMergedOutcomes(dataDir: string, batchId: string): Map<number, BatchRowOutcome> {
  const meta = readMeta(dataDir, batchId);
  const merged = meta.previousBatchId ? readMergedOutcomes(dataDir, meta.previousBatchId) : new Map();
  for (const [row, o] of readOutcomes(dataDir, batchId)) merged.set(row, o);
  return merged;
}

export function writeFinal(dataDir: string, batchId: string, final: BatchFinal): void {
  const entry = finalEntry({ batchId, fileSha256: fileHashOf(dataDir, batchId) });
  writeEntry(dataDir, join(batchDir(dataDir, batchId), 'final.json'), entry, final);
}

export function readFinal(dataDir: string, batchId: string): BatchFinal | undefined {
  const file = join(batchDir(dataDir, batchId), 'final.json');
  if (!existsSync(file)) return undefined;
  return readEntry<BatchFinal>(
    dataDir,
    file,
    finalEntry({ batchId, fileSha256: fileHashOf(dataDir, batchId) }),
  );
}

/** Retries of a first batch already in the store (their ids end in -retry-<n>). */
export function retryCount(dataDir: string, rootBatchId: string): number {
  const store = join(dataDir, 'store');
  if (!existsSync(store)) return 0;
  return readdirSync(store).filter((d) => d.startsWith(`${rootBatchId}-retry-`)).length;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function checkFileSha256(fileSha256: string): string {
  if (!SHA256.test(fileSha256)) throw new Error(`"${fileSha256}" is not a file's sha256`);
  return fileSha256;
}

/** What people said about one file (submitted, approved, rejected), whichever batch of it they meant. */
function statementsFile(dataDir: string, fileSha256: string): string {
  checkFileSha256(fileSha256);
  return join(dataDir, 'store', 'files', fileSha256, 'statements.jsonl');
}

/**
 * Appends one signed statement to the file's record. Append-only: the record is the audit trail, and a
 * statement's signature, not its place in the store, is what makes it count.
 */
export function appendStatement(dataDir: string, fileSha256: string, signed: SignedStatement): void {
  const file = statementsFile(dataDir, fileSha256);
  ensurePrivateDir(dataDir);
  ensurePrivateDir(join(dataDir, 'store'));
  ensurePrivateDir(join(dataDir, 'store', 'files'));
  ensurePrivateDir(join(dataDir, 'store', 'files', fileSha256));
  appendPrivateFile(file, sealEntry(dataDir, statementEntry(fileSha256), signed) + '\n');
}

/** The record's size in bytes (0 when nothing was said): it only grows, so a change of size is a new statement. */
export function statementsSize(dataDir: string, fileSha256: string): number {
  const file = statementsFile(dataDir, fileSha256);
  return existsSync(file) ? statSync(file).size : 0;
}

export function readStatements(dataDir: string, fileSha256: string): SignedStatement[] {
  const file = statementsFile(dataDir, fileSha256);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => openEntry<SignedStatement>(dataDir, statementEntry(fileSha256), line));
}
