/**
 * What the console reads: the batch store's batches with their Temporal progress, and a payout by reference
 * (the look-up `payrun payout status` uses). Reading only; every change goes through src/batch.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { lookupPayout } from '../batch/services/lookup';
import type { StoredBatchMeta } from '../batch/store/files';
import { batchStoreFor } from '../batch/store/open';
import { batchProgressQuery, type BatchProgress } from '../../workflows/batch/contract';
import { payoutStatusQuery, payoutWorkflowId, type PayoutStatus } from '../../workflows/payout/contract';

export interface BatchListItem {
  meta: StoredBatchMeta;
  submitter?: string;
  phase: string;
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

/** A Moscow calendar date (YYYY-MM-DD) of an ISO moment. */
export function moscowDate(iso: string): string {
  return new Date(Date.parse(iso) + 3 * 3_600_000).toISOString().slice(0, 10);
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
  for (const meta of metas) {
    const submitter = await submitterOf(dataDir, meta);
    if (filter.submitter && submitter !== filter.submitter) continue;
    const progress = await batchProgress(client, meta.batchId);
    const phase = progress?.phase ?? 'unknown';
    if (filter.state && phase !== filter.state) continue;
    items.push({ meta, ...(submitter ? { submitter } : {}), phase, ...(progress ? { progress } : {}) });
    if (items.length >= LIST_LIMIT) break;
  }
  return items;
}

export type PayoutView =
  | { kind: 'none' }
  | { kind: 'running' | 'paid' | 'not_paid'; status: PayoutStatus }
  | { kind: 'needs_attention'; reason: string; status?: PayoutStatus };

/** A payout, running or closed, as `payrun payout status` finds it (src/batch/services/lookup.ts). */
export async function findPayout(client: Client, reference: string): Promise<PayoutView> {
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
    case 'paid':
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
