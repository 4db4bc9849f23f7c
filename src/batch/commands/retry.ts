import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { retryBatchWorkflowId, type BatchOptions } from '../../../workflows/batch/contract';
import type { SubmitSource } from '../../../workflows/shared/approval-contract';
import { t } from '../../i18n';
import type { Signer } from '../../policy/keys';
import type { Policy } from '../../policy/file';
import { signSubmission } from '../services/authorize';
import type { BatchPaths } from '../services/config';
import { recheckRefusedTaxpayers } from './retry-verdicts';
import { startBatchWorkflow } from './submit';
import type { BatchStore } from '../store/contract';
import { batchStoreFor } from '../store/open';
import { readAllRows, readMergedOutcomes } from '../store/reads';
import type { StoredRow } from '../store/files';
import { lookupPayout } from '../services/lookup';
import { derivedReference } from '../../domain/rules';
import { provenReturnOf } from '../../returns/read';
import type { BatchRowOutcome } from '../../../workflows/batch/contract';
import { payoutWorkflowId } from '../../../workflows/payout/contract';

/**
 * Outcomes a retry may pay: those that moved no money (their payout workflows ended Failed and may run
 * again), and those in doubt — every new payout run first settles earlier runs of its reference with
 * the bank, so a payout the bank did pay is reported already_paid, never paid twice.
 */
export const RETRYABLE_ROW_STATES: readonly string[] = [
  'failed',
  'rejected',
  'expired',
  'cancelled',
  'needs_attention',
  'limit_exceeded', // once the year turns, a limit is raised or the person's known income is corrected
];

/**
 * A new batch of only the rows in RETRYABLE_ROW_STATES and the returned rows (each under its derived
 * reference, see repayment), linked to the batch it retries. Their payout
 * workflows did not complete, so the ID-reuse policy lets them run again; a paid reference still
 * cannot be paid twice.
 */
export async function retryFailed(
  client: Client,
  batchId: string,
  opts: {
    paths: BatchPaths;
    taskQueue: string;
    batchOptions?: BatchOptions;
    /** Who asks for the retry: a retry is a new batch, approved on its own (docs/batches.md#approval). */
    submitter: Signer;
    source?: SubmitSource;
    /** The policy the retry's submit statement must verify under before it starts (the CLI's file). */
    whoMayPay?: Policy;
  },
): Promise<{ batchId: string; rows: number; totalKopecks: number }> {
  const { dataDir } = opts.paths;
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  if (!(await store.readFinal(batchId))) throw new Error(t('retry.not_finished', { batchId }));
  // A second retry of the same batch could only find its rows already paid or in flight.
  const later = await laterRetry(store, meta.rootBatchId, batchId);
  if (later) throw new Error(t('retry.already_retried', { batchId, later }));
  const outcomes = await readMergedOutcomes(store, batchId);
  const rows: StoredRow[] = [];
  for (const r of await readAllRows(store, batchId)) {
    const outcome = outcomes.get(r.row);
    if (RETRYABLE_ROW_STATES.includes(outcome?.state ?? '')) rows.push(r);
    else if (outcome?.state === 'returned') rows.push(await repayment(client, opts.taskQueue, r, outcome));
  }
  if (rows.length === 0) throw new Error(t('retry.nothing', { batchId }));
  const root = await store.readMeta(meta.rootBatchId);
  const n = (await store.retryCount(meta.rootBatchId)) + 1;
  const id = retryBatchWorkflowId(meta.rootBatchId, n);
  const totalKopecks = rows.reduce((s, r) => s + r.request.amount, 0);
  // Checked before the retry is stored: a submit statement the worker would not verify starts nothing.
  const submission = signSubmission(
    opts.whoMayPay,
    { batchId: id, contentHash: meta.contentHash, totalKopecks, rowCount: rows.length },
    opts.submitter,
    opts.source ?? 'cli',
    opts.batchOptions?.requireApproval === true,
  );
  await store.writeBatch(
    {
      batchId: id,
      rootBatchId: meta.rootBatchId,
      previousBatchId: batchId,
      contentHash: meta.contentHash,
      fileName: meta.fileName,
      sourcePath: root.doneName ? join(root.doneDir, root.doneName) : root.sourcePath,
      doneDir: root.doneDir,
      reportName: `${root.reportName}.retry-${n}`,
      load: meta.load,
      rowCount: rows.length,
      invalidRows: meta.invalidRows,
      totalKopecks,
      submittedAt: new Date().toISOString(),
    },
    rows,
  );
  await store.appendStatement(meta.contentHash, submission);
  // People the taxpayer check refused are checked again first: the retry must not reuse that verdict.
  await recheckRefusedTaxpayers(client, opts.taskQueue, rows, outcomes);
  const submitter = submission.statement.person;
  if (!(await startBatchWorkflow(client, id, opts.taskQueue, opts.batchOptions, submitter)))
    throw new Error(`batch ${id} already exists`);
  return { batchId: id, rows: rows.length, totalKopecks };
}

/**
 * A returned row paid again: under the reference derived from the one that came back (`REF~r1`, then
 * `REF~r2`…), only once its return workflow completed on the bank's word (a row the store says is
 * returned proves nothing by itself), and never when that derived reference already has a payout that
 * paid or may pay (the rule: one re-payment per return). Its details are the row's as stored.
 */
export async function repayment(
  client: Client,
  taskQueue: string,
  row: StoredRow,
  outcome: BatchRowOutcome,
): Promise<StoredRow> {
  const derived = derivedReference(outcome.reference);
  const proven = outcome.sessionId ? await provenReturnOf(client, taskQueue, outcome.sessionId) : undefined;
  if (!proven?.ok || !proven.closed || proven.status.payout?.reference !== outcome.reference)
    throw new Error(
      t('retry.returnUnproven', {
        reference: outcome.reference,
        why: proven && !proven.ok ? proven.why : 'its return has not completed',
      }),
    );
  const earlier = await lookupPayout(client, payoutWorkflowId(derived));
  if (earlier.kind !== 'none' && earlier.kind !== 'not_paid')
    throw new Error(t('retry.repaidAlready', { reference: outcome.reference, derived }));
  return { ...row, request: { ...row.request, reference: derived } };
}

/** The retry already made of `batchId`, if any (retries of one file are numbered from its first batch). */
async function laterRetry(
  store: BatchStore,
  rootBatchId: string,
  batchId: string,
): Promise<string | undefined> {
  for (let n = await store.retryCount(rootBatchId); n >= 1; n--) {
    const id = retryBatchWorkflowId(rootBatchId, n);
    if ((await store.exists(id)) && (await store.readMeta(id)).previousBatchId === batchId) return id;
  }
  return undefined;
}
