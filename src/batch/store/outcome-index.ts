/**
 * A batch's row outcomes looked up by row in a bounded amount of memory, for reports of any size.
 * outcomes.jsonl is in the order payouts finished, not row order, and a retry's outcomes sit in
 * several batches' files: the lines are first sorted into bucket files of BUCKET_ROWS rows each
 * (still sealed: the buckets hold nothing in clear), then read one bucket at a time while the report
 * walks the rows in order. The buckets live in the attempt's own scratch folder (finish.ts: one per
 * attempt, so an attempt still running never loses its buckets to the next) and are removed afterwards.
 * A bucket that was written and is gone when read is an error, never rows without an outcome.
 */
import { createReadStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { appendPrivateFile, ensurePrivateDir } from '../../private-fs';
import type { BatchRowOutcome } from '../../../workflows/batch/contract';
import { batchDir, fileHashOf } from './files';
import type { BatchStore } from './contract';
import { outcomeEntry } from './entries';
import { openEntry } from './sealing';
import { noPulse, type Pulse } from '../../pulse';

const BUCKET_ROWS = 4096;
/** Lines wait in memory per bucket up to this many characters before they are appended to its file. */
const PENDING_CHARS = 16 * 1024;
/** How many outcome lines between two pulses while the buckets are written. */
const PULSE_LINES = 1000;

/**
 * The failure of a report missing an outcome the store has (a bucket gone) or a row accepted with no
 * outcome at all: retryable, since a fresh attempt rebuilds its buckets; never written as not processed.
 */
export const OUTCOME_MISSING = 'BatchReportOutcomeMissing';

export const outcomeMissing = (batchId: string, what: string) =>
  ApplicationFailure.create({
    type: OUTCOME_MISSING,
    message: `the report of batch ${batchId} is missing an outcome: ${what}`,
    nonRetryable: false,
  });

/** An outcome line of `batchId`, sealed for that batch and its file (store/sealing.ts). */
const openLine = (dataDir: string, batchId: string, fileSha256: string, line: string) =>
  openEntry<BatchRowOutcome>(dataDir, outcomeEntry({ batchId, fileSha256 }), line);

/** Every outcome line of one batch, in file order, read a line at a time. */
export async function* outcomeLines(
  dataDir: string,
  batchId: string,
): AsyncGenerator<{ line: string; outcome: BatchRowOutcome }> {
  const file = join(batchDir(dataDir, batchId), 'outcomes.jsonl');
  if (!existsSync(file)) return;
  const hash = fileHashOf(dataDir, batchId);
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield { line, outcome: openLine(dataDir, batchId, hash, line) };
}

/** The batches whose outcomes a batch's report shows: the first of its retry chain first. */
export async function outcomeChain(store: BatchStore, batchId: string): Promise<string[]> {
  const chain: string[] = [];
  for (let id: string | undefined = batchId; id; id = (await store.readMeta(id)).previousBatchId)
    chain.unshift(id);
  return chain;
}

export class OutcomeIndex {
  private loaded = -1;
  private current = new Map<number, BatchRowOutcome>();

  private constructor(
    private readonly dataDir: string,
    private readonly batchId: string,
    private readonly dir: string,
    /** The buckets written: one of them gone when read is an error, not rows without outcomes. */
    private readonly written: ReadonlySet<number>,
    /** The chain's file: every batch of a retry chain is of its first batch's file. */
    private readonly fileSha256: string,
  ) {}

  /**
   * Sorts the outcomes of `batchIds` (oldest first; later lines win) from `store` into buckets in
   * `dir` (the attempt's own, made here), calling `pulse` as it goes; `dataDir` holds the keys.
   */
  static async build(
    store: BatchStore,
    dataDir: string,
    batchId: string,
    batchIds: readonly string[],
    dir: string,
    pulse: Pulse = noPulse,
  ): Promise<OutcomeIndex> {
    ensurePrivateDir(dir);
    const pending = new Map<number, string[]>();
    const sizes = new Map<number, number>();
    const written = new Set<number>();
    let read = 0;
    const flush = (bucket: number) => {
      const lines = pending.get(bucket);
      if (!lines?.length) return;
      appendPrivateFile(join(dir, `${bucket}`), lines.join('\n') + '\n');
      written.add(bucket);
      pending.set(bucket, []);
      sizes.set(bucket, 0);
    };
    for (const id of batchIds) {
      // Each line keeps the batch it was sealed for, which opening it needs.
      for await (const { sealed, outcome } of store.outcomes(id)) {
        if (++read % PULSE_LINES === 0) pulse();
        const line = `${id} ${sealed}`;
        const bucket = Math.floor(outcome.row / BUCKET_ROWS);
        const lines = pending.get(bucket) ?? [];
        lines.push(line);
        pending.set(bucket, lines);
        const size = (sizes.get(bucket) ?? 0) + line.length;
        sizes.set(bucket, size);
        if (size >= PENDING_CHARS) flush(bucket);
      }
    }
    for (const bucket of pending.keys()) flush(bucket);
    return new OutcomeIndex(dataDir, batchId, dir, written, (await store.readMeta(batchId)).contentHash);
  }

  /** The outcome of a row; rows must be asked for in ascending order (each bucket is read once). */
  get(row: number): BatchRowOutcome | undefined {
    const bucket = Math.floor(row / BUCKET_ROWS);
    if (bucket !== this.loaded) {
      this.current = new Map();
      this.loaded = bucket;
      const file = join(this.dir, `${bucket}`);
      for (const line of this.bucketLines(bucket, file)) {
        if (!line) continue;
        const space = line.indexOf(' ');
        const o = openLine(this.dataDir, line.slice(0, space), this.fileSha256, line.slice(space + 1));
        this.current.set(o.row, o);
      }
    }
    return this.current.get(row);
  }

  /** A bucket's lines; none for a bucket no outcome fell in, an error for one written and now gone. */
  private bucketLines(bucket: number, file: string): string[] {
    if (!this.written.has(bucket)) return [];
    try {
      return readFileSync(file, 'utf8').split('\n');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      throw outcomeMissing(
        this.batchId,
        `the outcomes of rows from ${bucket * BUCKET_ROWS} are gone (${file})`,
      );
    }
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
