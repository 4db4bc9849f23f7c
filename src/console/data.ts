/**
 * What the console reads: the batch store's batches with their Temporal progress, and a payout by reference
 * (the look-up `payrun payout status` uses). Reading only; every change goes through src/batch.
 */
import type { Client } from '@temporalio/client';
import { answeredProgress } from '../reads/progress';
import { shownState, type StateFacts } from '../i18n';
import type { StoredBatchMeta } from '../batch/store/files';
import { batchStoreFor } from '../batch/store/open';
import type { BatchProgress } from '../../workflows/batch/contract';

export { answeredProgress, batchProgress, LIST_QUERY_PATIENCE_MS } from '../reads/progress';
export { findPayout, type PayoutView } from '../reads/payout';

export interface BatchListItem {
  meta: StoredBatchMeta;
  submitter?: string;
  phase: string;
  /** The store's final says the batch ended by a cancel. */
  cancelled?: boolean;
  progress?: BatchProgress;
}

export interface BatchFilter {
  state?: string;
  /** YYYY-MM-DD, Moscow dates. */
  from?: string;
  to?: string;
  submitter?: string;
}

/** The batches shown at most on one page (newest first). */
export const LIST_LIMIT = 100;

export async function submitterOf(dataDir: string, meta: StoredBatchMeta): Promise<string | undefined> {
  return (await batchStoreFor(dataDir).readStatements(meta.contentHash)).find(
    (s) =>
      s.statement.kind === 'batch' &&
      s.statement.decision === 'submit' &&
      s.statement.batchId === meta.batchId,
  )?.statement.person;
}

/** A Moscow calendar date (YYYY-MM-DD) of an ISO moment. */
export function moscowDate(iso: string): string {
  return new Date(Date.parse(iso) + 3 * 3_600_000).toISOString().slice(0, 10);
}

/** Batches asked at once while the list is built. */
const LIST_QUERIES_AT_ONCE = 8;

/**
 * A listed batch's phase: `done` when the store has its final (no query: a finished batch's query replays
 * its history on a worker), else what the batch answers within LIST_QUERY_PATIENCE_MS, else `unknown`.
 * Before, one batch that did not answer (its workers gone: a shared store holds batches of other task
 * queues) failed the whole page after about 30 s, and every finished batch cost a replay.
 */
async function listedPhase(
  client: Client,
  dataDir: string,
  meta: StoredBatchMeta,
): Promise<{ phase: string; cancelled?: boolean; progress?: BatchProgress }> {
  try {
    // A final that fails its seal check is shown as unknown here (the batch page says why), not as a
    // failed list.
    const final = await batchStoreFor(dataDir).readFinal(meta.batchId);
    if (final !== undefined) return { phase: 'done', ...(final.cancelled ? { cancelled: true } : {}) };
    const progress = await answeredProgress(client, meta.batchId);
    return progress ? { phase: progress.phase, progress } : { phase: 'unknown' };
  } catch {
    return { phase: 'unknown' };
  }
}

/** What a batch's shown state is judged from: its progress when it answered, else its phase and final. */
export function stateFacts(item: {
  phase: string;
  cancelled?: boolean;
  progress?: BatchProgress;
}): StateFacts {
  const p = item.progress;
  return {
    phase: p?.phase ?? item.phase,
    ...(p?.approval ? { approval: p.approval } : {}),
    ...(p?.commands ? { commands: p.commands } : {}),
    ...(item.cancelled || p?.final?.cancelled ? { cancelled: true } : {}),
  };
}

export async function listBatches(
  client: Client,
  dataDir: string,
  filter: BatchFilter,
): Promise<BatchListItem[]> {
  const store = batchStoreFor(dataDir);
  const all: StoredBatchMeta[] = [];
  for (const id of await store.batchIds()) all.push(await store.readMeta(id));
  const metas = all
    .filter((m) => {
      const day = moscowDate(m.submittedAt);
      return (!filter.from || day >= filter.from) && (!filter.to || day <= filter.to);
    })
    .sort((a, b) => (a.submittedAt < b.submittedAt ? 1 : -1));
  const items: BatchListItem[] = [];
  for (let i = 0; i < metas.length && items.length < LIST_LIMIT; i += LIST_QUERIES_AT_ONCE) {
    const group = await Promise.all(
      metas.slice(i, i + LIST_QUERIES_AT_ONCE).map(async (meta) => {
        const submitter = await submitterOf(dataDir, meta);
        if (filter.submitter && submitter !== filter.submitter) return undefined;
        const listed = await listedPhase(client, dataDir, meta);
        const { phase, progress } = listed;
        if (filter.state && shownState(stateFacts(listed)) !== filter.state) return undefined;
        return {
          meta,
          ...(submitter ? { submitter } : {}),
          phase,
          ...(listed.cancelled ? { cancelled: true } : {}),
          ...(progress ? { progress } : {}),
        };
      }),
    );
    for (const item of group) if (item && items.length < LIST_LIMIT) items.push(item);
  }
  return items;
}
