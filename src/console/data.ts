/**
 * What the console reads: the batch store's batches with their Temporal progress, and a payout by reference
 * (the look-up `payrun payout status` uses). Reading only; every change goes through src/batch.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { lookupPayout } from '../batch/services/lookup';
import { provenReturnOf } from '../returns/read';
import { shownState, type StateFacts } from '../i18n';
import type { StoredBatchMeta } from '../batch/store/files';
import { batchStoreFor } from '../batch/store/open';
import { batchProgressQuery, type BatchProgress } from '../../workflows/batch/contract';
import { payoutStatusQuery, payoutWorkflowId, type PayoutStatus } from '../../workflows/payout/contract';

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

export async function batchProgress(client: Client, batchId: string): Promise<BatchProgress | undefined> {
  try {
    return await client.workflow.getHandle(batchId).query(batchProgressQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * A batch's progress if it answers within LIST_QUERY_PATIENCE_MS, else undefined (shown as unknown). A batch
 * whose workers are gone held the batch page and its progress poll for about 30 s before.
 */
export async function answeredProgress(client: Client, batchId: string): Promise<BatchProgress | undefined> {
  try {
    return await client.withDeadline(Date.now() + LIST_QUERY_PATIENCE_MS, () =>
      batchProgress(client, batchId),
    );
  } catch {
    return undefined;
  }
}

/** A Moscow calendar date (YYYY-MM-DD) of an ISO moment. */
export function moscowDate(iso: string): string {
  return new Date(Date.parse(iso) + 3 * 3_600_000).toISOString().slice(0, 10);
}

/** How long the list waits for one batch's answer: a batch whose worker is gone must not hold the page. */
export const LIST_QUERY_PATIENCE_MS = 5_000;
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

export type PayoutView =
  | { kind: 'none' }
  | { kind: 'running' | 'paid' | 'not_paid'; status: PayoutStatus }
  | { kind: 'needs_attention'; reason: string; status?: PayoutStatus };

/**
 * A payout, running or closed, as `payrun payout status` finds it (src/batch/services/lookup.ts): a paid
 * one the recipient's bank sent back is shown returned once its return workflow holds the bank's word.
 */
export async function findPayout(client: Client, reference: string, taskQueue?: string): Promise<PayoutView> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  switch (lookup.kind) {
    case 'none':
      return { kind: 'none' };
    case 'running':
      return {
        kind: 'running',
        status: await client.workflow.getHandle(workflowId).query(payoutStatusQuery),
      };
    case 'paid': {
      const sessionId = lookup.status.bank.sessionId;
      const proven = taskQueue && sessionId ? await provenReturnOf(client, taskQueue, sessionId) : undefined;
      if (!proven?.ok) return { kind: 'paid', status: lookup.status };
      const first = proven.status.proven[0]!;
      return {
        kind: 'paid',
        status: {
          ...lookup.status,
          state: 'returned',
          timestamps: { ...lookup.status.timestamps, returned: first.bankDate },
        },
      };
    }
    case 'not_paid':
      return { kind: lookup.kind, status: lookup.status };
    case 'needs_attention':
      return {
        kind: 'needs_attention',
        reason: lookup.reason,
        ...(lookup.status ? { status: lookup.status } : {}),
      };
  }
}
