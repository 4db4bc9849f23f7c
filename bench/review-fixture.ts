/**
 * Batches for the approver's review (src/console/review*.ts) in a folder batch store: N rows by turns to
 * a card, an account and a phone, `people` distinct tax numbers (row i pays person i mod people), amounts
 * that differ row to row. Shared by test/console/review.test.ts and bench/review-page.ts.
 */
import { luhnCard } from '../test/harness/csv-rows';
import { freshInn } from '../test/harness/batches';
import type { StoredBatchMeta, StoredRow } from '../src/batch/store/files';
import type { BatchStore } from '../src/batch/store/contract';

const SURNAMES = ['Иванова', 'Петров', 'Сидорова', 'Кузнецов', 'Смирнова', 'Попов', 'Волкова'];

export const REVIEW_BIK = '044525225';
/** A 20-digit account that passes the key check against REVIEW_BIK. */
export const REVIEW_ACCOUNT = '40817810938160925982';

export interface ReviewFixtureBatch {
  batchId: string;
  fileName: string;
  rows: number;
  people: number;
  /** The first person's number (freshInn(seed + i) is person i). */
  seed?: number;
  submittedAt?: string;
  /** Kopecks of row n (1-based); default 1 000,00 ₽ plus n kopecks. */
  amount?: (n: number) => number;
}

export function reviewRows(b: ReviewFixtureBatch): StoredRow[] {
  const rows: StoredRow[] = [];
  for (let n = 1; n <= b.rows; n++) {
    const person = (n - 1) % b.people;
    const kind = n % 3;
    rows.push({
      row: n + 1,
      request: {
        reference: `${b.batchId.slice(-6)}-${n}`,
        recipient: {
          lastName: SURNAMES[person % SURNAMES.length]!,
          firstName: 'Анна',
          taxReference: freshInn((b.seed ?? 0) + person),
        },
        method:
          kind === 0
            ? { type: 'card', cardNumber: luhnCard(`2200${String(person % 100).padStart(2, '0')}`, 16) }
            : kind === 1
              ? { type: 'bank_account', bik: REVIEW_BIK, account: REVIEW_ACCOUNT }
              : { type: 'fps', phone: `7912${String(1_000_000 + person).slice(-7)}`, bankId: '100000000111' },
        amount: b.amount?.(n) ?? 100_000 + n,
        currency: 'rub',
        serviceName: 'Консультация',
        selfEmployed: n % 5 !== 0,
      },
    });
  }
  return rows;
}

export async function writeReviewBatch(store: BatchStore, dir: string, b: ReviewFixtureBatch) {
  const rows = reviewRows(b);
  const meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'> = {
    batchId: b.batchId,
    rootBatchId: b.batchId,
    contentHash: b.batchId.slice(-16).padStart(64, '0'),
    fileName: b.fileName,
    sourcePath: `${dir}/processing/${b.fileName}`,
    doneDir: `${dir}/done`,
    reportName: b.batchId,
    load: { policy: 'whole-file' },
    rowCount: rows.length,
    invalidRows: 0,
    totalKopecks: rows.reduce((s, r) => s + r.request.amount, 0),
    submittedAt: b.submittedAt ?? '2026-03-01T09:00:00.000Z',
  };
  return { meta: await store.writeBatch(meta, rows), rows };
}
