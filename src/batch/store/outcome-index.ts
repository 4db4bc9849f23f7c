/**
 * A batch's row outcomes looked up by row in a bounded amount of memory, for reports of any size.
 * outcomes.jsonl is in the order payouts finished, not row order, and a retry's outcomes sit in
 * several batches' files: the lines are first sorted into bucket files of BUCKET_ROWS rows each
 * (still sealed: the buckets hold nothing in clear), then read one bucket at a time while the report
 * walks the rows in order. The buckets live in this process's own data folder (the batch's folder
 * under `<dataDir>/store/`, whichever store holds the outcomes) and are removed afterwards.
 */
import { createReadStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { appendPrivateFile, ensurePrivateDir } from '../../private-fs';
import type { BatchRowOutcome } from '../../../workflows/batch/contract';
import { batchDir, fileHashOf } from './files';
import type { BatchStore } from './contract';
import { outcomeEntry } from './entries';
import { openEntry } from './sealing';

const BUCKET_ROWS = 4096;
/** Lines wait in memory per bucket up to this many characters before they are appended to its file. */
const PENDING_CHARS = 16 * 1024;

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
    private readonly dir: string,
    /** The chain's file: every batch of a retry chain is of its first batch's file. */
    private readonly fileSha256: string,
  ) {}

  /**
   * Sorts the outcomes of `batchIds` (oldest first; later lines win) from `store` into buckets under
   * `batchId`'s folder in `dataDir`.
   */
  static async build(
    store: BatchStore,
    dataDir: string,
    batchId: string,
    batchIds: readonly string[],
  ): Promise<OutcomeIndex> {
    const dir = join(batchDir(dataDir, batchId), 'report-buckets');
    rmSync(dir, { recursive: true, force: true });
    ensurePrivateDir(dir);
    const pending = new Map<number, string[]>();
    const sizes = new Map<number, number>();
    const flush = (bucket: number) => {
      const lines = pending.get(bucket);
      if (!lines?.length) return;
      appendPrivateFile(join(dir, `${bucket}`), lines.join('\n') + '\n');
      pending.set(bucket, []);
      sizes.set(bucket, 0);
    };
    for (const id of batchIds) {
      // Each line keeps the batch it was sealed for, which opening it needs.
      for await (const { sealed, outcome } of store.outcomes(id)) {
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
    return new OutcomeIndex(dataDir, dir, (await store.readMeta(batchId)).contentHash);
  }

  /** The outcome of a row; rows must be asked for in ascending order (each bucket is read once). */
  get(row: number): BatchRowOutcome | undefined {
    const bucket = Math.floor(row / BUCKET_ROWS);
    if (bucket !== this.loaded) {
      this.current = new Map();
      this.loaded = bucket;
      const file = join(this.dir, `${bucket}`);
      if (existsSync(file)) {
        for (const line of readFileSync(file, 'utf8').split('\n')) {
          if (!line) continue;
          const space = line.indexOf(' ');
          const o = openLine(this.dataDir, line.slice(0, space), this.fileSha256, line.slice(space + 1));
          this.current.set(o.row, o);
        }
      }
    }
    return this.current.get(row);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
