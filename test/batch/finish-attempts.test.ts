import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { makeReportFixture, type ReportFixture } from '../../bench/report-fixture';
import { finishBatch } from '../../src/batch/services/finish';
import { FolderBatchStore } from '../../src/batch/store/folder';
import { OUTCOME_MISSING, OutcomeIndex } from '../../src/batch/store/outcome-index';
import { t } from '../../src/i18n';

/**
 * Issue 38: attempts of the report activity overlapping in one worker, each removing the buckets the
 * other read, wrote 389 294 rows as not processed. Each attempt now has its own scratch folder, stops
 * at its pulse once cancelled, and publishes whole; a missing outcome fails the attempt.
 */

const ROWS = 20_000;
let root: string;
let expected: Buffer;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'payrun-attempts-'));
  // The report one attempt alone writes: what every overlapping pair must publish, byte for byte.
  const alone = makeReportFixture(join(root, 'alone'), ROWS);
  expected = readFileSync((await finishBatch(alone.dataDir, alone.batchId, { cancelled: true })).reportPath);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const scratchLeft = (f: ReportFixture) => readdirSync(join(f.dataDir, 'store', f.batchId, 'report-work'));

/** The report's rows' states: every data row cancelled, paid or refused, none «не обработано». */
function expectRightReport(reportPath: string) {
  const report = readFileSync(reportPath);
  expect(report.toString('utf8')).not.toContain(t('report.not_processed'));
  expect(report.toString('utf8').split('\n').filter(Boolean)).toHaveLength(ROWS + 1);
  expect(report.equals(expected)).toBe(true);
}

describe('two attempts of one report at once', () => {
  // Where the second starts, in pulses of the first: cancelling never-started rows, sorting, each pass.
  it.each([2_000, 25_000, 45_000])(
    "the second starting at the first one's pulse %i: both publish the whole right report",
    async (at) => {
      const f = makeReportFixture(join(root, `both-${at}`), ROWS);
      let pulses = 0;
      let started!: () => void;
      const firstRunning = new Promise<void>((resolve) => (started = resolve));
      const first = finishBatch(f.dataDir, f.batchId, {
        cancelled: true,
        attempt: '1',
        pulse: () => void (++pulses === at && started()),
      });
      await Promise.race([firstRunning, first]);
      expect(pulses).toBeGreaterThanOrEqual(at); // the first was still running
      const second = finishBatch(f.dataDir, f.batchId, { cancelled: true, attempt: '2' });
      const [a, b] = await Promise.all([first, second]);
      expect(b).toEqual(a);
      expectRightReport(b.reportPath);
      expect(scratchLeft(f)).toEqual([]);
      expect(readdirSync(join(root, `both-${at}`, 'done')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    },
    120_000,
  );

  it('an attempt cancelled (its heartbeat lost) stops as cancelled and publishes nothing; the next one does', async () => {
    const f = makeReportFixture(join(root, 'stale'), ROWS);
    let pulses = 0;
    let lost = false;
    let started!: () => void;
    const firstRunning = new Promise<void>((resolve) => (started = resolve));
    const first = finishBatch(f.dataDir, f.batchId, {
      cancelled: true,
      attempt: '1',
      pulse: () => {
        if (lost) throw new CancelledFailure('TIMED_OUT');
        if (++pulses === 30_000) started();
      },
    });
    await firstRunning;
    const store = new FolderBatchStore(f.dataDir);
    lost = true; // as the server answers the first one's next heartbeat once the second has started
    const second = finishBatch(f.dataDir, f.batchId, { cancelled: true, attempt: '2' });
    await expect(first).rejects.toBeInstanceOf(CancelledFailure);
    expect(await store.readFinal(f.batchId)).toBeUndefined();
    expectRightReport((await second).reportPath);
    expect(scratchLeft(f)).toEqual([]);
  }, 120_000);
});

describe('a missing outcome is an error, never not processed', () => {
  it('an accepted row with no outcome fails the attempt, retryable, and publishes nothing', async () => {
    const f = makeReportFixture(join(root, 'missing'), 3_000);
    // Not cancelled: one accepted row in ten has no outcome in the fixture.
    const failure = await finishBatch(f.dataDir, f.batchId, { cancelled: false }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: OUTCOME_MISSING, nonRetryable: false });
    expect((failure as Error).message).toMatch(/row \d+ was accepted and has none/);
    expect(readdirSync(join(root, 'missing', 'done'))).toEqual([]);
  });

  it('a bucket gone while the report reads it fails, instead of reading as rows with no outcome', async () => {
    const f = makeReportFixture(join(root, 'bucket'), 10_000);
    const store = new FolderBatchStore(f.dataDir);
    const dir = join(root, 'bucket', 'buckets');
    const index = await OutcomeIndex.build(store, f.dataDir, f.batchId, [f.batchId], dir);
    expect(index.get(2)).toBeDefined(); // bucket 0 read
    rmSync(join(dir, '1')); // what a later attempt did to the buckets of a running one
    let failure: unknown;
    try {
      index.get(4096 + 10);
    } catch (e) {
      failure = e;
    }
    expect(failure).toMatchObject({ type: OUTCOME_MISSING, nonRetryable: false });
    index.dispose();
    expect(existsSync(dir)).toBe(false);
  });
});
