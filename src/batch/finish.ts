import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBatch, summarizeReport, writeReport, type ReportResult } from '../csv';
import type { BatchFinal, BatchRowOutcome } from '../../workflows/contracts/batch';
import { writePrivateFile } from '../private-fs';
import { moveFile } from './folders';
import { appendOutcomes, readAllRows, readMergedOutcomes, readMeta, readOutcomes, writeFinal } from './store';

export function toReportResult(o: BatchRowOutcome): ReportResult {
  return {
    state: o.state,
    bank_session_id: o.sessionId,
    bank_payout_id: o.payoutId,
    receipt_link: o.receiptLink,
    error_code: o.errorCode,
    reason: o.reason,
  };
}

/**
 * Writes `<name>.report.csv` (the file's own encoding and delimiter, every row with its outcome) and
 * `<name>.summary.txt` next to the file in done/, and moves the file there. Safe to run again.
 */
export function finishBatch(dataDir: string, batchId: string, opts: { cancelled: boolean }): BatchFinal {
  const meta = readMeta(dataDir, batchId);
  if (opts.cancelled) {
    const have = readOutcomes(dataDir, batchId);
    const never = readAllRows(dataDir, batchId)
      .filter((r) => !have.has(r.row))
      .map((r): BatchRowOutcome => ({
        row: r.row,
        reference: r.request.reference,
        amount: r.request.amount,
        state: 'cancelled',
        errorCode: 'batch_cancelled',
        reason: 'the batch was cancelled before this payout started',
      }));
    appendOutcomes(dataDir, batchId, never);
  }
  const donePath = meta.doneName ? join(meta.doneDir, meta.doneName) : meta.sourcePath;
  const filePath = existsSync(meta.sourcePath) ? meta.sourcePath : donePath;
  const stopList = meta.load.stopList ? new Set(meta.load.stopList) : undefined;
  const batch = loadBatch(readFileSync(filePath), { ...meta.load, stopList });
  const outcomes = readMergedOutcomes(dataDir, batchId);
  const results = (row: { row: number }) => {
    const o = outcomes.get(row.row);
    return o ? toReportResult(o) : undefined;
  };
  const reportPath = join(meta.doneDir, `${meta.reportName}.report.csv`);
  const summaryPath = join(meta.doneDir, `${meta.reportName}.summary.txt`);
  writePrivateFile(reportPath, writeReport(batch, results));
  const summary = summarizeReport(batch, results).text;
  writePrivateFile(
    summaryPath,
    [
      `batch ${batchId}${meta.previousBatchId ? ` (retry of ${meta.previousBatchId})` : ''}`,
      `file ${meta.fileName}`,
      summary,
      `report ${reportPath}`,
      '',
    ].join('\n'),
  );
  if (filePath !== donePath) moveFile(filePath, donePath);
  const final = { reportPath, summaryPath, summary };
  writeFinal(dataDir, batchId, final);
  return final;
}
