/**
 * How long the approver's review of a large batch takes and what it holds in memory (issue 35): writes
 * a batch of N rows (default 100 000) to 20 000 people in a folder batch store, after last month's paid
 * batch of the same file name and size, then, in one process as the console would: the first page
 * (the review built: rows read once, who was paid before, the diff), the next pages, largest first,
 * flagged only, the totals by recipient, and the whole CSV download. Prints each time, the heap after a
 * full collection and the peak RSS. Limits are the policy's (no Temporal here, so no ledger is asked).
 *
 *   node -r ./test/harness/ts-register.js bench/review-page.ts [rows=100000]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderBatchStore } from '../src/batch/store/folder';
import { MESSAGES } from '../src/console/messages';
import { ReviewCache } from '../src/console/review-cache';
import { reviewCsv } from '../src/console/review-csv';
import { reviewSection } from '../src/console/views-review';
import { writeReviewBatch } from './review-fixture';

const NOW_ID = 'batch-00000000000000e2';

/** Both batches written by this process; measured by a fresh one, so the peak RSS is the review's own. */
async function main(rows: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'payrun-review-bench-'));
  try {
    const store = new FolderBatchStore(join(root, 'data'));
    const people = Math.max(1, Math.floor(rows / 5));
    const last = await writeReviewBatch(store, root, {
      batchId: 'batch-00000000000000e1',
      fileName: 'ведомость.csv',
      rows,
      people,
      submittedAt: '2026-02-01T09:00:00.000Z',
    });
    await store.appendOutcomes(
      last.meta.batchId,
      last.rows.map((r) => ({
        row: r.row,
        reference: r.request.reference,
        amount: r.request.amount,
        state: 'succeeded' as const,
      })),
    );
    await store.writeFinal(last.meta.batchId, { reportPath: '', summaryPath: '', summary: '' });
    await writeReviewBatch(store, root, {
      batchId: NOW_ID,
      fileName: 'ведомость.csv',
      rows,
      people: people + people / 10, // a tenth of them new
      submittedAt: '2026-03-01T09:00:00.000Z',
      amount: (n) => 100_000 + ((n * 7919) % 9_000_000),
    });
    const register = __filename.endsWith('.ts')
      ? ['-r', join(__dirname, '..', 'test', 'harness', 'ts-register.js')]
      : [];
    execFileSync(process.execPath, ['--expose-gc', ...register, __filename, '--review', root], {
      stdio: 'inherit',
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function review(root: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  {
    const store = new FolderBatchStore(join(root, 'data'));
    const now = { meta: await store.readMeta(NOW_ID) };
    const policy = {
      limitsFor: (_: string, se: boolean) => ({
        perPayoutKopecks: 5_000_000,
        ...(se ? { yearlyCapKopecks: 240_000_000 } : {}),
      }),
    };
    const cache = new ReviewCache({ store: () => store, policy: () => policy });
    const ctx = { lang: 'ru' as const, m: MESSAGES.ru, csrf: 'x' };
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const timed = async (what: string, fn: () => Promise<unknown> | unknown) => {
      const t0 = process.hrtime.bigint();
      const out = await fn();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      console.log(`${what.padEnd(44)} ${ms.toFixed(1).padStart(9)} ms`);
      return out;
    };
    const page = async (q: Parameters<typeof reviewSection>[2]) => {
      const entry = await cache.review(now.meta);
      return reviewSection(ctx, entry, q).value.length;
    };
    await timed('first page (review built)', () => page({ order: 'file', only: 'all', page: 1, people: 1 }));
    await timed('page 2', () => page({ order: 'file', only: 'all', page: 2, people: 1 }));
    await timed('page 500', () => page({ order: 'file', only: 'all', page: 500, people: 1 }));
    await timed('largest first, page 1 (sorted once)', () =>
      page({ order: 'amount', only: 'all', page: 1, people: 1 }),
    );
    await timed('largest first, page 700', () =>
      page({ order: 'amount', only: 'all', page: 700, people: 1 }),
    );
    await timed('flagged only, page 1', () => page({ order: 'file', only: 'flagged', page: 1, people: 1 }));
    await timed('totals by recipient, page 300', () =>
      page({ order: 'file', only: 'all', page: 1, people: 300 }),
    );
    const entry = await cache.review(now.meta);
    let bytes = 0;
    await timed('the whole CSV (Windows-1251)', () => {
      for (const b of reviewCsv(entry, 'ru', 'windows-1251')) bytes += b.length;
    });
    gc();
    const heapHeld = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    const r = entry.review;
    console.log(
      JSON.stringify({
        rows: r.rows.length,
        people: r.people.length,
        fresh: r.freshPeople,
        flagged: r.limitFlags.size,
        diff: entry.diff && {
          added: entry.diff.added,
          removed: entry.diff.removed,
          changed: entry.diff.changed,
        },
        csvMb: +(bytes / 2 ** 20).toFixed(1),
        heapHeldMb: +heapHeld.toFixed(1),
        peakRssMb: +(process.resourceUsage().maxRSS / 1024).toFixed(0),
      }),
    );
  }
}

if (process.argv[2] === '--review') void review(process.argv[3]!);
else void main(Number(process.argv[2] ?? 100_000));
