/**
 * Builds a batch's review from the batch store once and keeps it for the next pages: a 100 000-row file
 * is read (and its chunks opened) once per console process, not once a page. Kept for the last few
 * batches looked at; a batch whose rows were written again is built anew.
 *
 * "Never paid before" is read from the store itself: every other batch's rows and outcomes (paid,
 * credited or already paid), read once for a finished batch and remembered by tax number, each time
 * again for one still running. So it counts payouts of batches in this store, not payouts started by
 * hand, and the first review after a start reads the store's batches once.
 *
 * Limits: a row the file alone takes past its person's per-payout, monthly or yearly limit is flagged at
 * once (the policy's limits, no ledger); then each person's ledger is asked in the background, as the dry
 * run asks it (src/batch/services/headroom.ts: queries, nothing reserved), and the flags are replaced with what
 * the payouts would meet. Asked again when the answer is older than `limitsFreshMs`.
 */
import { planHeadroom, type HeadroomOf, type HeadroomRow } from '../batch/services/headroom';
import type { StoredBatchMeta } from '../batch/store/files';
import type { BatchStore } from '../batch/store/contract';
import type { Policy } from '../policy/file';
import { IncomeLedger } from '../../workflows/recipient-ledger/ledger';
import type { BatchRowState } from '../../workflows/batch/contract';
import { BatchReview, diffTotals, personName, type PersonTotals, type ReviewDiff } from './review';

const PAID: ReadonlySet<BatchRowState> = new Set(['succeeded', 'credited', 'already_paid']);

export interface ReviewEntry {
  meta: StoredBatchMeta;
  review: BatchReview;
  diff?: ReviewDiff;
  limits: { state: 'pending' | 'done' | 'failed'; at: string };
}

interface Held {
  key: string;
  built: Promise<ReviewEntry>;
  checking?: Promise<void>;
  checkedAt?: number;
}

export interface ReviewCacheOptions {
  store: () => BatchStore;
  policy: () => Pick<Policy, 'limitsFor'>;
  /** The ledgers' answer (ledgerHeadroom); undefined: the policy's limits only. */
  ledger?: () => HeadroomOf;
  /** Batches kept (default 4). */
  keep?: number;
  limitsFreshMs?: number;
  now?: () => Date;
}

export class ReviewCache {
  private readonly held = new Map<string, Held>();
  /** Tax numbers paid by finished batches (read once each), with the batches that paid them. */
  private readonly paidBy = new Map<string, string[]>();
  private readonly finishedRead = new Set<string>();

  constructor(private readonly opts: ReviewCacheOptions) {}

  private get now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** The review of a stored batch: built the first time, the same one after (a new limits check when due). */
  async review(meta: StoredBatchMeta): Promise<ReviewEntry> {
    const key = `${meta.contentHash}:${meta.rowCount}:${meta.chunkCount}:${meta.submittedAt}`;
    let h = this.held.get(meta.batchId);
    if (h && h.key !== key) h = undefined;
    if (!h) {
      h = { key, built: this.build(meta) };
      h.built.catch(() => this.held.delete(meta.batchId));
    }
    // Most recently used last: the first one is the one to let go.
    this.held.delete(meta.batchId);
    this.held.set(meta.batchId, h);
    while (this.held.size > (this.opts.keep ?? 4)) this.held.delete(this.held.keys().next().value!);
    const entry = await h.built;
    const due = h.checkedAt === undefined || Date.now() - h.checkedAt > (this.opts.limitsFreshMs ?? 120_000);
    if (this.opts.ledger && !h.checking && due) {
      const held = h;
      held.checking = this.checkLedgers(entry).finally(() => {
        held.checking = undefined;
        held.checkedAt = Date.now();
      });
    }
    return entry;
  }

  /** Waits for the ledger check under way, if any (tests, the download). */
  async settled(batchId: string): Promise<void> {
    await this.held.get(batchId)?.checking;
  }

  private async build(meta: StoredBatchMeta): Promise<ReviewEntry> {
    const store = this.opts.store();
    const review = new BatchReview();
    for (let i = 0; i < meta.chunkCount; i++) review.add(await store.readChunk(meta.batchId, i));
    const others: StoredBatchMeta[] = [];
    for (const id of await store.batchIds()) if (id !== meta.batchId) others.push(await store.readMeta(id));
    const running = await this.readPaid(store, others);
    review.markPaidBefore(
      (inn) => running.has(inn) || (this.paidBy.get(inn) ?? []).some((id) => id !== meta.batchId),
    );
    const offline: HeadroomOf = async (inn, selfEmployed) => {
      const limits = this.opts.policy().limitsFor(inn, selfEmployed);
      return limits && { ...new IncomeLedger().headroom({ limits, at: this.now.toISOString() }), limits };
    };
    review.setLimitFlags((await planHeadroom(headroomRows(review), offline)).refused);
    const diff = await this.diff(store, meta, others, review.totals());
    return {
      meta,
      review,
      ...(diff ? { diff } : {}),
      limits: { state: this.opts.ledger ? 'pending' : 'failed', at: this.now.toISOString() },
    };
  }

  /** Reads who other batches paid: finished ones once (remembered), running ones now (returned). */
  private async readPaid(store: BatchStore, others: StoredBatchMeta[]): Promise<Set<string>> {
    const running = new Set<string>();
    for (const m of others) {
      if (this.finishedRead.has(m.batchId)) continue;
      const finished = (await store.readFinal(m.batchId)) !== undefined;
      const paidRows = new Set<number>();
      for await (const { outcome } of store.outcomes(m.batchId))
        if (PAID.has(outcome.state)) paidRows.add(outcome.row);
      if (paidRows.size > 0)
        for (let i = 0; i < m.chunkCount; i++)
          for (const r of await store.readChunk(m.batchId, i)) {
            if (!paidRows.has(r.row)) continue;
            const inn = r.request.recipient.taxReference;
            if (!finished) running.add(inn);
            else {
              const by = this.paidBy.get(inn);
              if (!by) this.paidBy.set(inn, [m.batchId]);
              else if (!by.includes(m.batchId)) by.push(m.batchId);
            }
          }
      if (finished) this.finishedRead.add(m.batchId);
    }
    return running;
  }

  /** The last batch submitted before this one with the same file name (not a retry of this one's file). */
  private async diff(
    store: BatchStore,
    meta: StoredBatchMeta,
    others: StoredBatchMeta[],
    now: PersonTotals,
  ): Promise<ReviewDiff | undefined> {
    const last = others
      .filter(
        (m) =>
          m.fileName === meta.fileName &&
          m.rootBatchId !== meta.rootBatchId &&
          m.submittedAt < meta.submittedAt,
      )
      .sort((a, b) => (a.submittedAt < b.submittedAt ? 1 : -1))[0];
    if (!last) return undefined;
    const before: PersonTotals = new Map();
    for (let i = 0; i < last.chunkCount; i++)
      for (const { request: r } of await store.readChunk(last.batchId, i)) {
        const inn = r.recipient.taxReference;
        const was = before.get(inn);
        if (was) was.total += r.amount;
        else before.set(inn, { name: personName(r.recipient), total: r.amount });
      }
    return {
      batchId: last.batchId,
      submittedAt: last.submittedAt,
      rowsBefore: last.rowCount,
      totalBefore: last.totalKopecks,
      ...diffTotals(before, now),
    };
  }

  private async checkLedgers(entry: ReviewEntry): Promise<void> {
    try {
      const plan = await planHeadroom(headroomRows(entry.review), this.opts.ledger!());
      entry.review.setLimitFlags(plan.refused);
      entry.limits = { state: 'done', at: this.now.toISOString() };
    } catch {
      // The policy's flags stay; the page says the ledgers did not answer, and the next page asks again.
      if (entry.limits.state !== 'done') entry.limits = { state: 'failed', at: this.now.toISOString() };
    }
  }
}

/** Every row as its payout would reserve it, in file order (planHeadroom's question). */
function headroomRows(review: BatchReview): HeadroomRow[] {
  return review.rows.map((r) => ({
    row: r.row,
    amount: r.amount,
    taxReference: review.people[r.person]!.inn,
    selfEmployed: r.selfEmployed,
    pay: true,
  }));
}
