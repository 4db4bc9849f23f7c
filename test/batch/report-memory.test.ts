import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'csv-parse/sync';
import { finishBatch } from '../../src/batch/services/finish';
import { makeReportFixture } from '../../bench/report-fixture';
import { workTimeout } from '../harness/budget';

/**
 * The report of a batch takes the same memory whatever its row count (issue 25: a 143 000-row file
 * overflowed the stack, and the writer held every row). The live heap is sampled after a full
 * collection every few thousand rows while finishBatch writes the report; its growth over the heap
 * before the call is compared between 30 000 and 300 000 rows in this one process. A writer that
 * holds the rows grows about ten times as much for ten times the rows; a streaming one about the same.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'payrun-report-memory-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function heapGrowth(rows: number): Promise<{ growth: number; report: string; summary: string }> {
  const fixture = makeReportFixture(join(root, `${rows}`), rows);
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sample = () => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  let pulses = 0; // the pulse comes every row: the heap is sampled every 5 000
  const pulse = () => void (++pulses % 5000 === 0 && sample());
  const final = await finishBatch(fixture.dataDir, fixture.batchId, { cancelled: true, pulse });
  sample();
  return { growth: peak - before, report: final.reportPath, summary: final.summary };
}

/** Growth below this is measurement noise (code compiled on first use, parser buffers), counted as this. */
const NOISE = 4 * 2 ** 20;

it(
  'writes the report of a 300 000-row batch, every row state in it, in the memory of a 30 000-row one',
  async () => {
    await heapGrowth(3_000); // the first run compiles and caches what every later run uses
    const small = await heapGrowth(30_000);
    const large = await heapGrowth(300_000);
    const ratio = large.growth / Math.max(small.growth, NOISE);
    process.stdout.write(
      `report heap growth: 30 000 rows ${(small.growth / 2 ** 20).toFixed(1)} MB, 300 000 rows ${(large.growth / 2 ** 20).toFixed(1)} MB, ratio ${ratio.toFixed(2)}\n`,
    );

    // Every state, and every row of the file once, in row order.
    const records: string[][] = parse(readFileSync(large.report, 'utf8'));
    expect(records).toHaveLength(300_001);
    const states = new Set(records.slice(1).map((r) => r[10]));
    expect([...states].sort()).toEqual(
      [
        'already_paid',
        'cancelled',
        'credited',
        'expired',
        'failed',
        'invalid',
        'needs_attention',
        'reference_conflict',
        'rejected',
        'returned',
        'succeeded',
      ].sort(),
    );
    expect(records.slice(1).map((r) => r[0])).toEqual(
      Array.from({ length: 300_000 }, (_, i) => `r-${i + 1 - (i % 1000 === 500 ? 1 : 0)}`),
    );
    expect(large.summary).toMatch(
      /^300000 строк, .* ₽ \+ 300 нечитаемых сумм \(строки 1001, 2001, .* и ещё 290\)/,
    );

    expect(ratio).toBeLessThan(2);
    // 333 000 report rows in all (3 000 + 30 000 + 300 000).
  },
  workTimeout({ units: 333_000, perUnitMs: 1, floorMs: 600_000 }),
);
