import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { moscowDate } from '../../domain';
import { copyPrivateFile, PRIVATE_FILE_MODE, writePrivateFile } from '../../private-fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { hashFile, streamBatch, type StreamedBatch } from '../../csv/stream-load';
import { loadStopList, type LoadOptions, type Policy, type RowError } from '../../csv';
import { payoutLimit } from '../../csv/limits';
import {
  batchRecordChangedSignal,
  batchWorkflowId,
  DEFAULT_MAX_IN_FLIGHT,
  type BatchOptions,
  type BatchWorkflowInput,
} from '../../../workflows/batch/contract';
import type { SubmitSource } from '../../../workflows/shared/approval-contract';
import type { Signer } from '../../policy/keys';
import type { Policy as WhoMayPay } from '../../policy/file';
import { t } from '../../i18n';
import { hasVerifiedSubmission, signSubmission } from '../services/authorize';
import type { BatchPaths } from '../services/config';
import { batchFolders, freeName, moveFile } from '../services/folders';
import type { BatchWriter } from '../store/contract';
import type { StoredBatchMeta } from '../store/files';
import { batchStoreFor } from '../store/open';

export interface SubmitOptions {
  paths: BatchPaths;
  taskQueue: string;
  policy?: Policy;
  expectTotalKopecks?: number;
  batchOptions?: BatchOptions;
  /** Who submits: their signed statement is stored with the file before the batch starts. */
  submitter: Signer;
  /** The policy the submit statement must verify under (the worker's file): otherwise nothing starts. */
  whoMayPay: WhoMayPay;
  /** How the file came; the policy may ask approval of dropped files and not of submitted ones. Default cli. */
  source?: SubmitSource;
}

export type SubmitOutcome =
  | {
      status: 'started';
      batchId: string;
      processingPath: string;
      valid: number;
      invalid: number;
      totalKopecks: number;
    }
  | { status: 'already_submitted'; batchId: string; firstFile: string }
  /** The batch existed and its record had lost its verified submit statement: a fresh one is stored. */
  | { status: 'resubmitted'; batchId: string; firstFile: string }
  | {
      status: 'rejected';
      batchId: string;
      /** The first SHOWN_ERRORS errors; the errors file names every one. */
      errors: RowError[];
      errorCount: number;
      rejectedPath: string;
      errorsPath: string;
    };

/** One error as one line: row, column and rule. */
export function describeError(e: RowError): string {
  return t('cli.row_error', { row: e.row, column: e.column, message: e.message, rule: e.rule });
}

export function loadOptionsFor(
  opts: Pick<SubmitOptions, 'paths' | 'policy' | 'expectTotalKopecks'>,
): LoadOptions {
  return {
    policy: opts.policy ?? 'whole-file',
    // Kept with the batch, so the worker loads the approved file again exactly so (bound-rows.ts).
    maxPayoutKopecks: payoutLimit(undefined),
    // pay_on is judged from the day of submission, and the worker reloads the file judging from it too.
    today: moscowDate(Date.now()),
    ...(opts.expectTotalKopecks !== undefined ? { expectTotalKopecks: opts.expectTotalKopecks } : {}),
    ...(opts.paths.stopListFile ? { stopList: loadStopList(opts.paths.stopListFile) } : {}),
  };
}

const within = (file: string, dir: string) => dirname(resolve(file)) === resolve(dir);

/**
 * Validates a batch file and starts its batch workflow. The file goes to processing/ (moved from the
 * inbox, copied from anywhere else), then done/ when paid or rejected/ (with `<name>.errors.txt`)
 * when refused. The same bytes are the same batch id, so a file submitted twice is paid once.
 */
export async function submitBatch(client: Client, file: string, opts: SubmitOptions): Promise<SubmitOutcome> {
  const folders = batchFolders(opts.paths.batchesDir);
  const { dataDir } = opts.paths;
  const store = batchStoreFor(dataDir);
  const hash = await hashFile(file);
  const batchId = batchWorkflowId(hash);
  const tag = hash.slice(0, 8);
  const name = basename(file);
  const owned = within(file, folders.inbox) || within(file, folders.processing);
  const refuse = (errors: RowError[]) => {
    const rejectedName = freeName(folders.rejected, name, tag);
    const rejectedPath = join(folders.rejected, rejectedName);
    if (owned) moveFile(file, rejectedPath);
    else copyPrivateFile(file, rejectedPath);
    const errorsPath = `${rejectedPath}.errors.txt`;
    if (errors.length > 0) writePrivateFile(errorsPath, errors.map(describeError).join('\n') + '\n');
    return { rejectedPath, errorsPath };
  };

  const source = opts.source ?? 'cli';
  const requireApproval = opts.batchOptions?.requireApproval === true;
  if ((await store.exists(batchId)) && (await workflowExists(client, batchId))) {
    const first = await store.readMeta(batchId);
    const firstFile = first.fileName;
    // A record that lost its submitter (deleted, emptied, unverifiable) blocks approval until this.
    const resubmit = !(await hasVerifiedSubmission(dataDir, opts.whoMayPay, first));
    const signed = resubmit
      ? signSubmission(opts.whoMayPay, first, opts.submitter, source, requireApproval)
      : undefined;
    if (owned && resolve(file) !== resolve(first.sourcePath))
      refuse([
        {
          row: 1,
          column: null,
          rule: 'already_submitted',
          message: t('errors.already_submitted', { batchId }),
        },
      ]);
    if (!signed) return { status: 'already_submitted', batchId, firstFile };
    await store.appendStatement(first.contentHash, signed);
    await nudge(client, batchId);
    return { status: 'resubmitted', batchId, firstFile };
  }

  const load = loadOptionsFor(opts);
  // Read as a stream (src/csv/stream-load.ts): each valid row sealed into the store's chunks as it is
  // read, every error kept on disk, duplicate references found in bounded memory.
  const read = async (into: BatchWriter, skipRows?: AsyncIterator<number>): Promise<StreamedBatch> => {
    let skip = skipRows ? await skipRows.next() : undefined;
    const batch = await streamBatch(file, load, async (row, request) => {
      while (skip && !skip.done && skip.value < row) skip = await skipRows!.next();
      if (skip && !skip.done && skip.value === row) return;
      await into.add({ row, request });
    });
    if (batch.contentHash !== hash) {
      batch.close();
      throw new Error(t('submit.file_changed', { file: name }));
    }
    return batch;
  };
  let writer = await store.beginBatch(batchId, hash);
  let batch: StreamedBatch | undefined;
  try {
    batch = await read(writer);
    if (batch.rejected) {
      await writer.abandon();
      const { rejectedPath, errorsPath } = refuse([]);
      const errors = await writeErrors(batch, errorsPath);
      return { status: 'rejected', batchId, errors, errorCount: batch.errorCount, rejectedPath, errorsPath };
    }
    if (batch.duplicateValid > 0) {
      // Rows that passed their own checks and then shared a reference (partial policy): written again without them.
      await writer.abandon();
      writer = await store.beginBatch(batchId, hash);
      const first = batch;
      batch = await read(writer, first.duplicateValidRows());
      first.close();
    }
    // Checked before anything moves or is stored: a statement the worker would not verify starts nothing.
    const submission = signSubmission(
      opts.whoMayPay,
      {
        batchId,
        contentHash: hash,
        totalKopecks: batch.totals.acceptedKopecks,
        rowCount: batch.totals.valid,
      },
      opts.submitter,
      source,
      requireApproval,
    );

    const processingPath = within(file, folders.processing)
      ? resolve(file)
      : join(folders.processing, freeName(folders.processing, name, tag));
    if (processingPath !== resolve(file)) {
      if (owned) moveFile(file, processingPath);
      else copyPrivateFile(file, processingPath);
    }
    const doneName = freeName(folders.done, basename(processingPath), tag);
    const meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'> = {
      batchId,
      rootBatchId: batchId,
      contentHash: hash,
      fileName: name,
      sourcePath: processingPath,
      doneDir: folders.done,
      doneName,
      reportName: basename(doneName, extname(doneName)),
      load: { ...load, stopList: load.stopList ? [...load.stopList] : undefined },
      rowCount: batch.totals.valid,
      invalidRows: batch.totals.invalid,
      totalKopecks: batch.totals.acceptedKopecks,
      submittedAt: new Date().toISOString(),
    };
    // The file first, the batch (meta last) after: a complete batch always has its file.
    await store.saveFile(batchId, 'source', processingPath);
    await writer.finish(meta);
    await store.appendStatement(hash, submission);
    // The verified submitter goes with the batch too: a record emptied before its first read forgets nobody.
    const submitter = submission.statement.person;
    const started = await startBatchWorkflow(client, batchId, opts.taskQueue, opts.batchOptions, submitter);
    if (!started) return { status: 'already_submitted', batchId, firstFile: name };
    return {
      status: 'started',
      batchId,
      processingPath,
      valid: batch.totals.valid,
      invalid: batch.totals.invalid,
      totalKopecks: batch.totals.acceptedKopecks,
    };
  } finally {
    await writer.abandon().catch(() => {}); // after finish() a no-op: the batch is complete
    batch?.close();
  }
}

/** Errors shown on screen and returned; the errors file names every one. */
export const SHOWN_ERRORS = 100;

/** Every error of a refused file to `errorsPath` (owner-only), as a stream; the first SHOWN_ERRORS returned. */
async function writeErrors(batch: StreamedBatch, errorsPath: string): Promise<RowError[]> {
  const first: RowError[] = [];
  const out = createWriteStream(errorsPath, { mode: PRIVATE_FILE_MODE });
  try {
    for await (const e of batch.errors()) {
      if (first.length < SHOWN_ERRORS) first.push(e);
      if (!out.write(describeError(e) + '\n')) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'finish');
  }
  return first;
}

/** false when a batch of this id exists already: batch ids are never reused. */
export async function startBatchWorkflow(
  client: Client,
  batchId: string,
  taskQueue: string,
  options?: BatchOptions,
  submitter?: string,
): Promise<boolean> {
  const input: BatchWorkflowInput = {
    batchId,
    options: { ...options, maxInFlight: options?.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT },
    ...(submitter ? { submitter } : {}),
  };
  try {
    await client.workflow.start('batchWorkflow', {
      workflowId: batchId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/** Tells a running batch its record changed, so a batch waiting for approval judges it again. */
async function nudge(client: Client, batchId: string): Promise<void> {
  try {
    await client.workflow.getHandle(batchId).signal(batchRecordChangedSignal);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err; // finished: its retry reads the record afresh
  }
}

async function workflowExists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err; // unreachable server: never guess, and never overwrite a stored batch
  }
}
