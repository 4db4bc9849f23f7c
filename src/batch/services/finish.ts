import { randomUUID } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { invalidResult, notProcessed, ReportWriter, Summarizer, type ReportResult } from '../../csv';
import { t } from '../../i18n';
import { readFileFormat, rowRules, streamRecords } from '../../csv/stream';
import type { BatchFinal, BatchRowOutcome } from '../../../workflows/batch/contract';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../private-fs';
import { noPulse, type Pulse } from '../../pulse';
import { moveFile } from './folders';
import type { ReportHeadroom, ReportPerson } from './headroom';
import { outcomeReason } from '../../i18n/row-reasons';
import { OutcomeIndex, outcomeChain, outcomeMissing } from '../store/outcome-index';
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
  /**
   * Called all through every phase (src/pulse.ts): the activity's heartbeat, throwing once this
   * attempt is cancelled (its heartbeat lost), so it stops before it publishes.
   */
  pulse?: Pulse;
  /** Names this attempt's scratch folder (the activity's attempt number); absent: a random id. */
  attempt?: string;
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
    // A cancelled attempt stops as cancelled: the attempt the server started after it carries on.
    if (
      e instanceof ApplicationFailure ||
      e instanceof CancelledFailure ||
      (code && TRANSIENT_CODES.has(code))
    )
      throw e;
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
  const pulse = opts.pulse ?? noPulse;
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  const scratch = attemptScratch(dataDir, batchId, opts.attempt);
  // Where the watcher's host shows them (done/); a shared store's worker publishes them to the store.
  const reportPath = join(meta.doneDir, `${meta.reportName}.report.csv`);
  const summaryPath = join(meta.doneDir, `${meta.reportName}.summary.txt`);
  // Written complete before they are published; next to done/ for the folder store (a rename there).
  const written = store.sharesFolders
    ? { report: `${reportPath}.${scratch.tag}.tmp`, summary: `${summaryPath}.${scratch.tag}.tmp` }
    : { report: join(scratch.dir, 'report.csv'), summary: join(scratch.dir, 'summary.txt') };
  try {
    if (opts.cancelled) await cancelNeverStarted(store, meta, pulse);
    const donePath = meta.doneName ? join(meta.doneDir, meta.doneName) : meta.sourcePath;
    const filePath = await attemptsFile(store, meta, scratch.dir, donePath);
    const summary = await writeReportFile(
      store,
      dataDir,
      meta,
      filePath,
      written.report,
      scratch.dir,
      pulse,
      opts.headroom,
    );
    const text = t('summary.file', {
      batchId,
      ...(meta.previousBatchId ? { retryOf: meta.previousBatchId } : {}),
      file: meta.fileName,
      summary,
      report: reportPath,
    });
    await writeDurably(written.summary, (write) => write(Buffer.from(text + '\n')));
    const final = {
      reportPath,
      summaryPath,
      summary,
      ...(opts.cancelled ? { cancelled: true as const } : {}),
    };
    // The last look before publishing: an attempt cancelled by now publishes nothing. For the folder
    // store what follows runs without yielding, so attempts in one worker cannot interleave it.
    pulse();
    if (store.sharesFolders && donePath !== meta.sourcePath && existsSync(meta.sourcePath))
      moveFile(meta.sourcePath, donePath);
    await store.publishReport(batchId, written, final);
    return final;
  } finally {
    rmSync(written.report, { force: true });
    rmSync(written.summary, { force: true });
    rmSync(scratch.dir, { recursive: true, force: true });
  }
}

/** No attempt of the report outlives its 30-minute start-to-close; a scratch folder this old is a dead one's. */
const STALE_SCRATCH_MS = 2 * 60 * 60 * 1000;

/**
 * This attempt's own scratch folder, `report-work/<start ms>-<attempt>-<random>` in the batch's folder
 * of this process's data folder. An attempt removes only its own and those of attempts dead for hours:
 * never one that may still be running (issue 38: removing them read as rows with no outcome).
 */
function attemptScratch(dataDir: string, batchId: string, attempt: string | undefined) {
  const parent = join(batchDir(dataDir, batchId), 'report-work');
  ensurePrivateDir(parent);
  const now = Date.now();
  for (const name of readdirSync(parent)) {
    const started = Number(name.split('-')[0]);
    if (!(now - started < STALE_SCRATCH_MS)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const tag = `${now}-${attempt ?? 'x'}-${randomUUID().slice(0, 8)}`;
  const dir = join(parent, tag);
  ensurePrivateDir(dir);
  return { dir, tag };
}

/**
 * The file this attempt reads, its own: a hard link (or copy) of the folder store's file, which another
 * attempt may move to done/ meanwhile; a shared store's file fetched from the store (the first batch of
 * a retry chain kept it).
 */
async function attemptsFile(store: BatchStore, meta: StoredBatchMeta, dir: string, donePath: string) {
  const filePath = join(dir, 'file');
  if (!store.sharesFolders) {
    if (!(await store.fetchFile(meta.rootBatchId ?? meta.batchId, 'source', filePath)))
      throw new Error(`the file of batch ${meta.batchId} is not in the batch store (${store.where})`);
    return filePath;
  }
  // Where it is now: still in processing/, or moved to done/ by an attempt that published.
  for (const from of [meta.sourcePath, donePath]) {
    try {
      linkSync(from, filePath);
      return filePath;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code !== 'EXDEV' && code !== 'EPERM') throw e;
      copyFileSync(from, filePath);
      return filePath;
    }
  }
  throw new Error(`the file of batch ${meta.batchId} is neither at ${meta.sourcePath} nor at ${donePath}`);
}

/** Writes a new owner-only file through `fill`, then fsyncs it: published after a crash, it is whole. */
async function writeDurably(
  path: string,
  fill: (write: (bytes: Uint8Array) => void) => void | Promise<void>,
): Promise<void> {
  const fd = openSync(path, 'w', PRIVATE_FILE_MODE);
  try {
    await fill((bytes) => writeSync(fd, bytes));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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
async function cancelNeverStarted(store: BatchStore, meta: StoredBatchMeta, pulse: Pulse): Promise<void> {
  const have = new RowBits();
  for await (const { outcome } of store.outcomes(meta.batchId)) {
    pulse();
    have.add(outcome.row);
  }
  for (let i = 0; i < meta.chunkCount; i++) {
    pulse();
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

/**
 * The report, streamed: a first pass over the file finds its widest row, its last row, and the
 * references of the rows that were refused at submission (a duplicate reference is refused in all
 * its rows, so only those rows can share one); the second writes every row with its outcome, or with
 * the rules it broke; an accepted row with no outcome is an error. Returns the summary's text.
 */
async function writeReportFile(
  store: BatchStore,
  dataDir: string,
  meta: StoredBatchMeta,
  filePath: string,
  reportPath: string,
  scratch: string,
  pulse: Pulse,
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
  const buckets = join(scratch, 'buckets');
  const outcomes = await OutcomeIndex.build(store, dataDir, meta.batchId, chain, buckets, pulse);
  /** Whose headroom the report tells: the people of rows that reached a payout. */
  const people = new Map<string, ReportPerson>();
  /** Those with a row that ended other than paid: their ledger settles before it is asked. */
  const unsettled = new Set<string>();
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
      pulse();
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

  const summarizer = new Summarizer();
  try {
    await writeDurably(reportPath, async (write) => {
      const writer = new ReportWriter(format, width, write);
      const acceptedAgain = new AcceptedRows(store, rootMeta);
      for await (const { row, cells } of streamRecords(filePath, format)) {
        pulse();
        if (row === headerRow) continue;
        if (row === lastRow && lastIsTotal) {
          writer.totalRow(cells);
          continue;
        }
        const outcome = outcomes.get(row);
        // The stored request is read only where it is needed: a row with no outcome, or a headroom to tell.
        const request = outcome && !headroom ? undefined : await acceptedAgain.request(row);
        // An accepted row's outcome is in the store once the batch ends: none is an error, not "not processed".
        if (!outcome && request) throw outcomeMissing(meta.batchId, `row ${row} was accepted and has none`);
        const result = outcome
          ? toReportResult(outcome)
          : refusedResult(rules, row, cells, sameReference(rules.reference(cells)));
        if (outcome && request && headroom) {
          const left = headroom.cell(request.recipient.taxReference, request.selfEmployed);
          if (left !== undefined) result.headroom = left;
        }
        writer.row(cells, result);
        summarizer.add({ state: result.state, amount: rules.kopecks(cells), row });
      }
      writer.end();
    });
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
