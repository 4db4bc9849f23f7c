/**
 * The batch store: `<dataDir>/store/<batchId>/` with meta.json, the valid rows in JSON chunks and the
 * rows' outcomes as JSON lines. The submitter writes it before the batch workflow starts; the
 * workflow never holds more than one chunk of rows, and no row's result, in its history.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { LoadOptions, PayoutRequest } from '../csv/types';
import type { BatchFinal, BatchMetaView, BatchRowOutcome } from '../../workflows/definitions';

export const CHUNK_ROWS = 500;

export interface StoredRow {
  row: number;
  request: PayoutRequest;
}

export interface StoredBatchMeta extends BatchMetaView {
  batchId: string;
  contentHash: string;
  /** The file while it is paid (processing/), or the first batch's file in done/ for a retry. */
  sourcePath: string;
  doneDir: string;
  /** Exactly how the file was loaded, so the report reads it the same way. */
  load: Omit<LoadOptions, 'stopList'> & { stopList?: string[] };
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

const BATCH_ID = /^batch-[0-9a-f]{16}(-retry-\d+)?$/;

export function batchDir(dataDir: string, batchId: string): string {
  if (!BATCH_ID.test(batchId)) throw new Error(`"${batchId}" is not a batch id (batch-<16 hex>[-retry-<n>])`);
  return join(dataDir, 'store', batchId);
}

const writeJsonAtomic = (file: string, value: unknown) => {
  writeFileSync(`${file}.tmp`, JSON.stringify(value));
  renameSync(`${file}.tmp`, file);
};
const chunkFile = (dir: string, index: number) => join(dir, `chunk-${String(index).padStart(5, '0')}.json`);

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
  mkdirSync(dir, { recursive: true });
  const chunkCount = Math.ceil(rows.length / CHUNK_ROWS);
  for (let i = 0; i < chunkCount; i++)
    writeJsonAtomic(chunkFile(dir, i), rows.slice(i * CHUNK_ROWS, (i + 1) * CHUNK_ROWS));
  const full: StoredBatchMeta = { ...meta, chunkCount, chunkSize: CHUNK_ROWS };
  writeJsonAtomic(join(dir, 'meta.json'), full);
  return full;
}

export function readMeta(dataDir: string, batchId: string): StoredBatchMeta {
  const file = join(batchDir(dataDir, batchId), 'meta.json');
  if (!existsSync(file))
    throw new Error(`batch ${batchId} is not in the batch store ${join(dataDir, 'store')}`);
  return JSON.parse(readFileSync(file, 'utf8')) as StoredBatchMeta;
}

export function readChunk(dataDir: string, batchId: string, index: number): StoredRow[] {
  return JSON.parse(readFileSync(chunkFile(batchDir(dataDir, batchId), index), 'utf8')) as StoredRow[];
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
  appendFileSync(file, outcomes.map((o) => JSON.stringify(o)).join('\n') + '\n');
}

export function readOutcomes(dataDir: string, batchId: string): Map<number, BatchRowOutcome> {
  const file = join(batchDir(dataDir, batchId), 'outcomes.jsonl');
  const map = new Map<number, BatchRowOutcome>();
  if (!existsSync(file)) return map;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const o = JSON.parse(line) as BatchRowOutcome;
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
  writeJsonAtomic(join(batchDir(dataDir, batchId), 'final.json'), final);
}

export function readFinal(dataDir: string, batchId: string): BatchFinal | undefined {
  const file = join(batchDir(dataDir, batchId), 'final.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BatchFinal) : undefined;
}

/** Retries of a first batch already in the store (their ids end in -retry-<n>). */
export function retryCount(dataDir: string, rootBatchId: string): number {
  const store = join(dataDir, 'store');
  if (!existsSync(store)) return 0;
  return readdirSync(store).filter((d) => d.startsWith(`${rootBatchId}-retry-`)).length;
}
