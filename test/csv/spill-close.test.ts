import { readdirSync } from 'node:fs';
import { mergeBy, SpillLog, SpillSorter } from '../../src/csv/spill';

/** This process's open file descriptors. */
const openFiles = () => readdirSync('/proc/self/fd').length;

/** The first `n` items, then the reader stops (as the console stops after its first 1 000 errors). */
async function firstOf<T>(items: AsyncIterable<T>, n: number): Promise<T[]> {
  const taken: T[] = [];
  for await (const item of items) {
    taken.push(item);
    if (taken.length >= n) break;
  }
  return taken;
}

// Items of ~100 bytes: each spilled file is far larger than one read (64 KiB), so a reader that stops
// early leaves its file mid-read, open unless the reader closes it.
const item = (n: number) => ({ n, pad: 'x'.repeat(100) });

describe('spilled items read back by a reader that stops early', () => {
  it('leave no file open: sorted runs, a log, and the two merged', async () => {
    const before = openFiles();
    for (let round = 0; round < 5; round++) {
      const sorter = new SpillSorter<{ n: number }>((a, b) => a.n - b.n, 2_000);
      const log = new SpillLog<{ n: number }>(1_000);
      for (let i = 0; i < 6_000; i++) {
        sorter.add(item((i * 7919) % 6_000));
        log.add(item(i * 2 + 1));
      }
      expect((await firstOf(sorter.sorted(), 3)).map((x) => x.n)).toEqual([0, 1, 2]);
      expect((await firstOf(log.items(), 3)).map((x) => x.n)).toEqual([1, 3, 5]);
      const merged = await firstOf(
        mergeBy(sorter.sorted(), log.items(), (x) => x.n),
        4,
      );
      expect(merged.map((x) => x.n)).toEqual([0, 1, 1, 2]);
      sorter.close();
      log.close();
    }
    // 5 rounds of 3 runs and a log each, read three times: a leak leaves dozens of descriptors open.
    expect(openFiles() - before).toBeLessThan(5);
  });
});
