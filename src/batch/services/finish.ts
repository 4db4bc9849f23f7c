import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { invalidResult, notProcessed, ReportWriter, Summarizer, type ReportResult } from '../../csv';
import { t } from '../../i18n';
import { readFileFormat, rowRules, streamRecords } from '../../csv/stream';
import type { BatchFinal, BatchRowOutcome } from '../../../workflows/batch/contract';
import { ensurePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from '../../private-fs';
import { moveFile } from './folders';
import type { ReportHeadroom, ReportPerson } from './headroom';
import { outcomeReason } from '../../i18n/row-reasons';
import { OutcomeIndex, outcomeChain } from '../store/outcome-index';
import { batchDir, type StoredBatchMeta, type StoredRow } from '../store/files';
import type { BatchStore } from '../store/contract';
import { batchStoreFor } from '../store/open';

export function toReportResult(o: BatchRowOutcome): ReportResult {
  return {
    state: o.state,
    bank_session_id: o.sessionId,
    bank_payout_id: o.payoutId,
    receipt_link: o.receiptLink,
    error_code: o.errorCode,
    reason: outcomeReason(o),
  };
}

/** The failure type of a report that cannot be written however often it is tried. */
export const REPORT_FAILED = 'BatchReportFailed';

/** Disk and descriptor trouble that may pass: the activity's retry policy tries again. */
const TRANSIENT_CODES = new Set(['ENOSPC', 'EIO', 'EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EDQUOT']);

export interface FinishOptions {
  cancelled: boolean;
  /** Called every few thousand rows while the report is written (the activity heartbeats). */
  progress?: () => void;
  /** The `headroom` cells of rows that reached a payout (src/batch/services/headroom.ts reportHeadroom); absent: empty. */
  headroom?: ReportHeadroom;
}

/**
 * Writes `<name>.report.csv` (the file's own encoding and delimiter, every row with its outcome) and
 * `<name>.summary.txt` next to the file in done/, and moves the file there. Safe to run again. The
 * file and the outcomes are read a piece at a time, so a report of any size takes the same memory.
 * A failure that trying again cannot mend (the file or the store unreadable, a bug) is thrown as a
 * non-retryable ApplicationFailure of type BatchReportFailed, so the batch fails saying why instead
 * of being retried for ever; disk trouble that may pass is thrown as it is.
 */
export async function finishBatch(
  dataDir: string,
  batchId: string,
  opts: FinishOptions,
): Promise<BatchFinal> {
  try {
    return await finish(dataDir, batchId, opts);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof ApplicationFailure || (code && TRANSIENT_CODES.has(code))) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw ApplicationFailure.create({
      type: REPORT_FAILED,
      message: `the report of batch ${batchId} could not be written: ${message}`,
      nonRetryable: true,
      cause: e instanceof Error ? e : undefined,
    });
  }
}

async function finish(dataDir: string, batchId: string, opts: FinishOptions): Promise<BatchFinal> {
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  if (opts.cancelled) await cancelNeverStarted(store, meta);
  const donePath = meta.doneName ? join(meta.doneDir, meta.doneName) : meta.sourcePath;
  // Where the watcher's host shows them (done/); a shared store's worker writes them here first.
  const reportPath = join(meta.doneDir, `${meta.reportName}.report.csv`);
  const summaryPath = join(meta.doneDir, `${meta.reportName}.summary.txt`);
  const local = store.sharesFolders ? undefined : await workCopy(store, dataDir, meta);
  const filePath = local?.filePath ?? (existsSync(meta.sourcePath) ? meta.sourcePath : donePath);
  const summary = await writeReportFile(
    store,
    dataDir,
    meta,
    filePath,
    local?.reportPath ?? reportPath,
    opts.progress,
    opts.headroom,
  );
  writePrivateFile(
    local?.summaryPath ?? summaryPath,
    t('summary.file', {
      batchId,
      ...(meta.previousBatchId ? { retryOf: meta.previousBatchId } : {}),
      file: meta.fileName,
      summary,
      report: reportPath,
    }) + '\n',
  );
  if (local) {
    // The watcher puts them in done/ and moves the file there (src/batch/commands/settle.ts).
    await store.saveFile(batchId, 'report', local.reportPath);
    await store.saveFile(batchId, 'summary', local.summaryPath);
    rmSync(local.dir, { recursive: true, force: true });
  } else if (filePath !== donePath) moveFile(filePath, donePath);
  const final = { reportPath, summaryPath, summary };
  await store.writeFinal(batchId, final);
  return final;
}

/**
 * A store shared across hosts: the file comes from the store (the first batch of a retry chain kept
 * it), and the report is written in this process's own data folder before it goes to the store.
 */
async function workCopy(store: BatchStore, dataDir: string, meta: StoredBatchMeta) {
  const dir = join(batchDir(dataDir, meta.batchId), 'report-work');
  rmSync(dir, { recursive: true, force: true });
  ensurePrivateDir(dir);
  const filePath = join(dir, 'file');
  if (!(await store.fetchFile(meta.rootBatchId ?? meta.batchId, 'source', filePath)))
    throw new Error(`the file of batch ${meta.batchId} is not in the batch store (${store.where})`);
  return { dir, filePath, reportPath: join(dir, 'report.csv'), summaryPath: join(dir, 'summary.txt') };
}

/** Row numbers, one bit each: which rows already have an outcome. */
class RowBits {
  private bits = new Uint8Array(1024);
  add(row: number): void {
    const byte = row >> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, byte + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (row & 7);
  }
  has(row: number): boolean {
    return ((this.bits[row >> 3] ?? 0) & (1 << (row & 7))) !== 0;
  }
}

/** Rows a cancelled batch never started: written to the store as cancelled, a chunk at a time. */
async function cancelNeverStarted(store: BatchStore, meta: StoredBatchMeta): Promise<void> {
  const have = new RowBits();
  for await (const { outcome } of store.outcomes(meta.batchId)) have.add(outcome.row);
  for (let i = 0; i < meta.chunkCount; i++) {
    const never = (await store.readChunk(meta.batchId, i))
      .filter((r) => !have.has(r.row))
      .map((r): BatchRowOutcome => ({
        row: r.row,
        reference: r.request.reference,
        amount: r.request.amount,
        state: 'cancelled',
        errorCode: 'batch_cancelled',
        reason: t('report.batch_cancelled'),
      }));
    await store.appendOutcomes(meta.batchId, never);
  }
}

/**
 * Whether a row was accepted when the file was submitted: the first batch of the chain stored every
 * accepted row, in row order, a chunk at a time. Rows must be asked for in ascending order.
 */
class AcceptedRows {
  private chunk = -1;
  private rows: number[] = [];
  private requests: StoredRow['request'][] = [];
  private at = 0;

  constructor(
    private readonly store: BatchStore,
    private readonly meta: StoredBatchMeta,
  ) {}

  async has(row: number): Promise<boolean> {
    for (;;) {
      while (this.at < this.rows.length && this.rows[this.at]! < row) this.at++;
      if (this.at < this.rows.length) return this.rows[this.at] === row;
      if (this.chunk + 1 >= this.meta.chunkCount) return false;
      this.chunk++;
      const stored = await this.store.readChunk(this.meta.batchId, this.chunk);
      this.rows = stored.map((r) => r.row);
      this.requests = stored.map((r) => r.request);
      this.at = 0;
    }
  }

  /** The row's payout request, when the row was accepted (rows asked for in rising order, as `has`). */
  async request(row: number): Promise<StoredRow['request'] | undefined> {
    return (await this.has(row)) ? this.requests[this.at] : undefined;
  }
}

/** How often progress() is called, in rows. */
const PROGRESS_EVERY = 5000;

/**
 * The report, streamed: a first pass over the file finds its widest row, its last row, and the
 * references of the rows that were refused at submission (a duplicate reference is refused in all
 * its rows, so only those rows can share one); the second writes every row with its outcome, or with
 * the rules it broke, or as not processed. Returns the summary's text.
 */
async function writeReportFile(
  store: BatchStore,
  dataDir: string,
  meta: StoredBatchMeta,
  filePath: string,
  reportPath: string,
  progress: (() => void) | undefined,
  headroom?: FinishOptions['headroom'],
): Promise<string> {
  const rootMeta = await store.readMeta(meta.rootBatchId ?? meta.batchId);
  const stopList = meta.load.stopList ? new Set(meta.load.stopList) : undefined;
  const format = await readFileFormat(filePath, meta.load);

  let headerRow = 0;
  let width = 0;
  let lastRow = 0;
  let lastIsTotal = false;
  let rules: ReturnType<typeof rowRules> | undefined;
  const refused = new Map<string, number[]>();
  const accepted = new AcceptedRows(store, rootMeta);
  const chain = await outcomeChain(store, meta.batchId);
  const outcomes = await OutcomeIndex.build(store, dataDir, meta.batchId, chain);
  /** Whose headroom the report tells: the people of rows that reached a payout. */
  const people = new Map<string, ReportPerson>();
  /** Those with a row that ended other than paid: their ledger settles before it is asked. */
  const unsettled = new Set<string>();
  let count = 0;
  try {
    for await (const { row, cells } of streamRecords(filePath, format)) {
      if (!rules) {
        headerRow = row;
        format.headers = cells;
        rules = rowRules(cells, { ...meta.load, stopList });
        format.amountColumn = rules.amountColumn;
        width = cells.length;
        continue;
      }
      width = Math.max(width, cells.length);
      lastRow = row;
      lastIsTotal = rules.isTotal(cells);
      if (!(await accepted.has(row))) {
        const reference = rules.reference(cells);
        const rows = refused.get(reference);
        if (rows) rows.push(row);
        else if (reference) refused.set(reference, [row]);
      } else if (headroom) {
        const state = outcomes.get(row)?.state;
        if (state) {
          const { recipient, selfEmployed } = (await accepted.request(row))!;
          const { taxReference } = recipient;
          people.set(`${selfEmployed}:${taxReference}`, { taxReference, selfEmployed, settleFirst: false });
          if (state !== 'succeeded' && state !== 'credited' && state !== 'already_paid')
            unsettled.add(taxReference);
        }
      }
      if (++count % PROGRESS_EVERY === 0) progress?.();
    }
    if (!rules) throw new Error(`the file ${filePath} is empty now; it was not when it was submitted`);
    for (const p of people.values()) p.settleFirst = unsettled.has(p.taxReference);
    await headroom?.ask(people.values());
  } catch (e) {
    outcomes.dispose();
    throw e;
  }
  const sameReference = (reference: string) => {
    const rows = refused.get(reference) ?? [];
    // The last row, when it is the TOTAL row, is no data row: it shares no reference.
    return lastIsTotal ? rows.filter((r) => r !== lastRow) : rows;
  };

  const tmp = `${reportPath}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', PRIVATE_FILE_MODE);
  let open = true;
  const summarizer = new Summarizer();
  try {
    const writer = new ReportWriter(format, width, (bytes) => writeSync(fd, bytes));
    const acceptedAgain = new AcceptedRows(store, rootMeta);
    for await (const { row, cells } of streamRecords(filePath, format)) {
      if (row === headerRow) continue;
      if (row === lastRow && lastIsTotal) {
        writer.totalRow(cells);
        continue;
      }
      const outcome = outcomes.get(row);
      // The stored request is read only where it is needed: a row with no outcome, or a headroom to tell.
      const request = outcome && !headroom ? undefined : await acceptedAgain.request(row);
      const result = outcome
        ? toReportResult(outcome)
        : request
          ? notProcessed()
          : refusedResult(rules, row, cells, sameReference(rules.reference(cells)));
      if (outcome && request && headroom) {
        const left = headroom.cell(request.recipient.taxReference, request.selfEmployed);
        if (left !== undefined) result.headroom = left;
      }
      writer.row(cells, result);
      summarizer.add({ state: result.state, amount: rules.kopecks(cells), row });
      if (++count % PROGRESS_EVERY === 0) progress?.();
    }
    writer.end();
    open = false;
    closeSync(fd);
    renameSync(tmp, reportPath);
  } catch (e) {
    if (open) closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    outcomes.dispose();
  }
  return summarizer.result().text;
}

/** A row refused at submission, with the rules it broke; not processed if (oddly) it breaks none now. */
function refusedResult(
  rules: ReturnType<typeof rowRules>,
  row: number,
  cells: readonly string[],
  sameReference: readonly number[],
): ReportResult {
  const errors = rules.errors(row, cells, sameReference);
  return errors.length > 0 ? invalidResult(errors) : notProcessed();
}
