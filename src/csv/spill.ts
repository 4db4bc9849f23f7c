/**
 * Bounded memory for what a batch file of any size leaves behind while it is read a row at a time:
 * a sorter that keeps at most `limit` items in memory and spills sorted runs to an owner-only temp
 * folder (merged back in order), and a log that keeps every row error on disk in the order found.
 * Both hold personal data only as far as error messages and references do, in a 0700 folder of
 * their own that close() removes.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Items kept in memory before a sorted run goes to disk: about 10 MB of references and row numbers. */
export const SPILL_LIMIT = 100_000;

async function* linesOf<T>(file: string): AsyncGenerator<T> {
  const input = createReadStream(file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) if (line) yield JSON.parse(line) as T;
  } finally {
    // Closing the lines does not close the file: a reader that stopped early would leave it open.
    lines.close();
    input.destroy();
  }
}

/** mkdtemp makes the folder 0700: nobody else on the host reads what is spilled. */
const privateTempDir = (): string => mkdtempSync(join(tmpdir(), 'payrun-spill-'));

/** Items in `compare` order, however many: sorted runs of `limit` items on disk, merged when read. */
export class SpillSorter<T> {
  private buffer: T[] = [];
  private runs: string[] = [];
  private dir: string | undefined;
  count = 0;

  constructor(
    private readonly compare: (a: T, b: T) => number,
    private readonly limit = SPILL_LIMIT,
  ) {}

  /** How many runs went to disk (tests force a spill with a tiny limit). */
  get spilledRuns(): number {
    return this.runs.length;
  }

  add(item: T): void {
    this.buffer.push(item);
    this.count++;
    if (this.buffer.length >= this.limit) this.spill();
  }

  private spill(): void {
    this.dir ??= privateTempDir();
    const file = join(this.dir, `run-${this.runs.length}.jsonl`);
    this.buffer.sort(this.compare);
    writeFileSync(file, this.buffer.map((item) => JSON.stringify(item)).join('\n') + '\n', { mode: 0o600 });
    this.runs.push(file);
    this.buffer = [];
  }

  /** Every item added, in order: a k-way merge of the runs and what is still in memory. */
  async *sorted(): AsyncGenerator<T> {
    this.buffer.sort(this.compare);
    const sources: AsyncIterator<T>[] = [
      ...this.runs.map((file) => linesOf<T>(file)),
      (async function* (items: T[]) {
        yield* items;
      })(this.buffer),
    ];
    const heads: (T | undefined)[] = [];
    const live: boolean[] = [];
    // A reader that stops early must close every run's file (each source's own `finally`).
    try {
      for (const [i, source] of sources.entries()) {
        const next = await source.next();
        live[i] = !next.done;
        heads[i] = next.done ? undefined : next.value;
      }
      for (;;) {
        let least = -1;
        for (let i = 0; i < sources.length; i++)
          if (live[i] && (least < 0 || this.compare(heads[i]!, heads[least]!) < 0)) least = i;
        if (least < 0) return;
        yield heads[least]!;
        const next = await sources[least]!.next();
        live[least] = !next.done;
        heads[least] = next.done ? undefined : next.value;
      }
    } finally {
      await Promise.all(sources.map((source) => source.return?.()));
    }
  }

  close(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.runs = [];
    this.buffer = [];
  }
}

/** Appended items kept on disk in the order added (written in blocks), read back as a stream. */
export class SpillLog<T> {
  private pending: string[] = [];
  private file: string | undefined;
  private dir: string | undefined;
  count = 0;

  constructor(private readonly block = 1000) {}

  add(item: T): void {
    this.pending.push(JSON.stringify(item));
    this.count++;
    if (this.pending.length >= this.block) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.dir ??= privateTempDir();
    this.file ??= join(this.dir, 'log.jsonl');
    writeFileSync(this.file, this.pending.join('\n') + '\n', { flag: 'a', mode: 0o600 });
    this.pending = [];
  }

  async *items(): AsyncGenerator<T> {
    this.flush();
    if (this.file) yield* linesOf<T>(this.file);
  }

  close(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.file = undefined;
    this.pending = [];
  }
}

/** Two streams each ordered by `key`, as one: on a tie, `a`'s item comes first. */
export async function* mergeBy<T>(
  a: AsyncIterable<T>,
  b: AsyncIterable<T>,
  key: (item: T) => number,
): AsyncGenerator<T> {
  const ia = a[Symbol.asyncIterator]();
  const ib = b[Symbol.asyncIterator]();
  // A reader that stops early (the console lists the first 1 000 errors) must close both sides' files.
  try {
    let na = await ia.next();
    let nb = await ib.next();
    while (!na.done || !nb.done) {
      if (!na.done && (nb.done || key(na.value) <= key(nb.value))) {
        yield na.value;
        na = await ia.next();
      } else if (!nb.done) {
        yield nb.value;
        nb = await ib.next();
      }
    }
  } finally {
    await Promise.all([ia.return?.(), ib.return?.()]);
  }
}
