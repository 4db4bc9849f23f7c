import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as iconv from 'iconv-lite';
import { FolderBatchStore } from '../../src/batch/store/folder';
import type { BatchStore } from '../../src/batch/store/contract';
import { BatchReview, diffTotals, pageOf } from '../../src/console/review';
import { ReviewCache } from '../../src/console/review-cache';
import { reviewCsv } from '../../src/console/review-csv';
import { excelRead, kopecksOf } from '../harness/excel-csv';
import type { IncomeLimits } from '../../workflows/recipient-ledger/contract';
import { REVIEW_ACCOUNT, reviewRows, writeReviewBatch } from '../../bench/review-fixture';
import { freshInn } from '../harness/batches';

/** The approver's review: masking, totals, order, paging, flags, the diff, the cache and the download. */

const noLimits = { limitsFor: (): IncomeLimits | undefined => undefined };

describe('the review of a batch', () => {
  const rows = reviewRows({ batchId: 'batch-00000000000000a1', fileName: 'март.csv', rows: 9, people: 4 });
  const review = new BatchReview();
  review.add(rows.slice(0, 5));
  review.add(rows.slice(5));

  it('masks every card, account, phone and tax number and keeps names and amounts', () => {
    const card = rows[2]!.request.method as { cardNumber: string };
    const byRow = new Map(review.rows.map((r) => [r.row, r]));
    expect(byRow.get(4)!.payee).toBe(`${card.cardNumber.slice(0, 6)}******${card.cardNumber.slice(-4)}`);
    expect(byRow.get(2)!.payee).toBe(`044525225 ****************${REVIEW_ACCOUNT.slice(-4)}`);
    expect(byRow.get(3)!.payee).toMatch(/^\*{7}\d{4} 100000000111$/);
    expect(review.people[0]!.innMasked).toBe(`********${freshInn(0).slice(-4)}`);
    expect(byRow.get(2)!.name).toBe('Иванова Анна');
    const shown = JSON.stringify({ rows: review.rows, people: review.people.map((p) => p.innMasked) });
    for (const r of rows) {
      expect(shown).not.toContain(r.request.recipient.taxReference);
      const m = r.request.method;
      expect(shown).not.toContain(m.type === 'card' ? m.cardNumber : m.type === 'fps' ? m.phone : m.account);
    }
  });

  it('adds up each recipient and the batch; largest first on request; pages clamp', () => {
    expect(review.total).toBe(rows.reduce((s, r) => s + r.request.amount, 0));
    expect(review.people.map((p) => p.rows)).toEqual([3, 2, 2, 2]);
    expect(review.people[0]!.total).toBe(100_001 + 100_005 + 100_009);
    expect(review.select('amount', 'all').map((i) => review.rows[i]!.row)).toEqual([
      10, 9, 8, 7, 6, 5, 4, 3, 2,
    ]);
    expect(review.peopleByTotal()[0]).toBe(0);
    expect(pageOf([1, 2, 3, 4, 5], 9, 2)).toEqual({ page: 3, pages: 3, start: 4, items: [5] });
    expect(pageOf([], 0, 2)).toEqual({ page: 1, pages: 1, start: 0, items: [] });
  });

  it('tells recipients added, gone and changed from the last batch of the file name', () => {
    const before = new Map([
      ['a', { name: 'А', total: 100 }],
      ['b', { name: 'Б', total: 200 }],
    ]);
    const after = new Map([
      ['b', { name: 'Б', total: 250 }],
      ['c', { name: 'В', total: 1000 }],
    ]);
    const d = diffTotals(before, after);
    expect([d.added, d.removed, d.changed]).toEqual([1, 1, 1]);
    expect(d.changes.map((c) => [c.name, c.before, c.after])).toEqual([
      ['В', 0, 1000],
      ['А', 100, 0],
      ['Б', 200, 250],
    ]);
  });
});

describe('the review cache over a folder batch store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-review-'));
  const store = new FolderBatchStore(join(dir, 'data'));
  let reads = 0;
  const counting: BatchStore = Object.assign(Object.create(store) as BatchStore, {
    readChunk: (id: string, i: number) => {
      reads++;
      return store.readChunk(id, i);
    },
  });

  it('flags a never-paid recipient and a row over the per-payout limit; diffs; reads the rows once', async () => {
    // January's file: persons 0 and 1; person 0 paid, person 1's row failed; finished.
    const jan = await writeReviewBatch(store, dir, {
      batchId: 'batch-00000000000000b1',
      fileName: 'зарплата.csv',
      rows: 2,
      people: 2,
      submittedAt: '2026-01-10T09:00:00.000Z',
    });
    await store.appendOutcomes(jan.meta.batchId, [
      { row: 2, reference: 'x-1', amount: 1, state: 'succeeded' },
      { row: 3, reference: 'x-2', amount: 1, state: 'failed' },
    ]);
    await store.writeFinal(jan.meta.batchId, { finishedAt: '2026-01-11T00:00:00.000Z' } as never);
    // February's: persons 0–2, row 4 (person 2) far above the limit.
    const feb = await writeReviewBatch(store, dir, {
      batchId: 'batch-00000000000000b2',
      fileName: 'зарплата.csv',
      rows: 3,
      people: 3,
      submittedAt: '2026-02-10T09:00:00.000Z',
      amount: (n) => (n === 3 ? 9_000_000 : 100_000),
    });
    const limit = 5_000_000;
    const cache = new ReviewCache({
      store: () => counting,
      policy: () => ({ limitsFor: () => ({ perPayoutKopecks: limit }) }),
    });
    const entry = await cache.review(feb.meta);
    const fresh = entry.review.people.map((p) => p.fresh);
    expect(fresh).toEqual([false, true, true]); // person 1's only row failed: never paid
    expect([...entry.review.limitFlags.keys()]).toEqual([4]);
    expect(entry.review.limitFlags.get(4)).toContain('лимит одной выплаты 50 000,00 ₽');
    expect(entry.review.select('file', 'flagged').map((i) => entry.review.rows[i]!.row)).toEqual([3, 4]);
    expect(entry.diff).toMatchObject({ batchId: jan.meta.batchId, added: 1, removed: 0, changed: 2 });

    const afterFirst = reads;
    expect(afterFirst).toBe(feb.meta.chunkCount + 2 * jan.meta.chunkCount); // rows, paid-before, diff
    await cache.review(feb.meta);
    await cache.review(feb.meta);
    expect(reads).toBe(afterFirst); // pages after the first read nothing again

    const csv = iconv.decode(Buffer.concat([...reviewCsv(entry, 'ru', 'windows-1251')]), 'win1251');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe(
      'Строка;Референс;Получатель;ИНН;Способ;Реквизиты;Сумма;Самозанятый;Итого получателю;Новый получатель;Лимит',
    );
    expect(lines).toHaveLength(feb.rows.length + 2);
    expect(lines.at(-1)).toBe('Итого;;;;;;92000,00;;;;');
    // As Russian Excel imports it: each amount a number, and they add up to the total line, in kopecks.
    const excel = excelRead(csv);
    const amounts = excel.slice(1, -1).map((r) => kopecksOf(r[6]));
    expect(amounts.reduce((a, b) => a + b, 0)).toBe(kopecksOf(excel.at(-1)![6]));
    expect(kopecksOf(excel.at(-1)![6])).toBe(entry.review.total);
    for (const r of feb.rows) {
      expect(csv).not.toContain(r.request.recipient.taxReference);
      const m = r.request.method;
      expect(csv).not.toContain(m.type === 'card' ? m.cardNumber : m.type === 'fps' ? m.phone : m.account);
    }
    const utf8 = Buffer.concat([...reviewCsv(entry, 'en', 'utf-8')]);
    expect(utf8.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(utf8.toString('utf8')).toContain('Row;Reference;Recipient;Tax number');
  });

  it('without a limit for anyone flags no row', async () => {
    const m = await writeReviewBatch(store, dir, {
      batchId: 'batch-00000000000000c1',
      fileName: 'x.csv',
      rows: 4,
      people: 2,
    });
    const entry = await new ReviewCache({ store: () => store, policy: () => noLimits }).review(m.meta);
    expect(entry.review.limitFlags.size).toBe(0);
    expect(entry.diff).toBeUndefined();
  });
});
