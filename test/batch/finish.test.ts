import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { loadBatch, summarizeReport, writeReport, type LoadOptions, type ReportResult } from '../../src/csv';
import { finishBatch, REPORT_FAILED, toReportResult } from '../../src/batch/services/finish';
import { appendOutcomes, writeBatch, type StoredBatchMeta } from '../../src/batch/store/files';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import { accountRow, cardRow, cp1251, csvText, fpsRow, utf8 } from '../harness/csv-rows';

/**
 * finishBatch streams the file and the outcomes; these tests hold it to the whole-file writer
 * (writeReport over loadBatch), which reads everything at once, on files with every kind of row.
 */

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payrun-finish-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Stored {
  dataDir: string;
  meta: StoredBatchMeta;
  processing: string;
  done: string;
}

/** The batch store of a submitted file, as submit writes it; the file in processing/. */
function storeBatch(bytes: Buffer, load: LoadOptions, batchId = 'batch-00000000000000aa'): Stored {
  const dataDir = join(root, 'data');
  const processing = join(root, 'processing');
  const done = join(root, 'done');
  mkdirSync(processing, { recursive: true });
  mkdirSync(done, { recursive: true });
  const sourcePath = join(processing, 'march.csv');
  writeFileSync(sourcePath, bytes);
  const batch = loadBatch(bytes, load);
  expect(batch.fileErrors).toEqual([]);
  expect(batch.rejected).toBe(false);
  const accepted = new Set(batch.accepted);
  const rows = batch.rows.filter((r) => r.request && accepted.has(r.request));
  const meta = writeBatch(
    dataDir,
    {
      batchId,
      rootBatchId: batchId,
      contentHash: 'ab'.repeat(32),
      fileName: 'march.csv',
      sourcePath,
      doneDir: done,
      doneName: 'march.csv',
      reportName: 'march',
      load: { ...load, stopList: load.stopList ? [...load.stopList] : undefined },
      rowCount: rows.length,
      invalidRows: batch.totals.invalid,
      totalKopecks: batch.totals.acceptedKopecks,
      submittedAt: new Date().toISOString(),
      fileSha256: 'ab'.repeat(32),
    } as Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>,
    rows.map((r) => ({ row: r.row, request: r.request! })),
  );
  return { dataDir, meta, processing, done };
}

const outcome = (row: number, reference: string, state: BatchRowOutcome['state'], extra = {}) =>
  ({ row, reference, amount: 100, state, ...extra }) as BatchRowOutcome;

describe('finishBatch: the streamed report is the whole-file report', () => {
  it('a Windows-1251 ";" CRLF file with refused rows, a shared reference, a misplaced TOTAL row, a wide row and a total row', async () => {
    const rows = [
      cardRow({ reference: 'a', amount: '1 000,00', description: '=HYPERLINK("x")' }),
      accountRow({ reference: 'b', amount: '20,50' }),
      fpsRow({ reference: 'c', amount: '0' }), // refused: not positive
      cardRow({ reference: 'd', amount: '5,00' }), // shares its reference with the next one
      cardRow({ reference: 'd', amount: '6,00' }),
      cardRow({ reference: 'TOTAL', amount: '1,00' }), // a TOTAL row that is not last
      cardRow({ reference: 'e', amount: '7,00', card_number: '1234' }), // refused: not a card
      cardRow({ reference: 'f', amount: '8,00' }), // accepted, cancelled
    ];
    let text = csvText(rows, { delimiter: ';', eol: '\r\n' });
    // A blank line, and a row one cell wider than the header (an unquoted delimiter).
    const lines = text.split('\r\n');
    lines.splice(3, 0, ';;;');
    lines[2] += ';extra';
    const sum = '1 047,50'; // the readable amounts of every data row, refused rows' too
    lines.splice(lines.length - 1, 0, `ИТОГО;;;;;;;;;;;${sum}`);
    text = lines.join('\r\n');
    const bytes = cp1251(text);
    const load: LoadOptions = { policy: 'partial' };
    const s = storeBatch(bytes, load);
    // Outcomes in the order payouts ended, one row recorded twice (the later line wins).
    appendOutcomes(s.dataDir, s.meta.batchId, [
      outcome(3, 'b', 'failed', { errorCode: 'card_declined', reason: '-the bank said no' }),
      outcome(2, 'a', 'needs_attention'),
    ]);
    appendOutcomes(s.dataDir, s.meta.batchId, [
      outcome(2, 'a', 'succeeded', { sessionId: 'ps_1', payoutId: 'po_1', receiptLink: 'https://r/1' }),
      outcome(10, 'f', 'cancelled'),
    ]);

    const final = await finishBatch(s.dataDir, s.meta.batchId, { cancelled: false });

    const expected = loadBatch(bytes, load);
    const results = new Map<number, ReportResult>([
      [
        2,
        toReportResult(
          outcome(2, 'a', 'succeeded', { sessionId: 'ps_1', payoutId: 'po_1', receiptLink: 'https://r/1' }),
        ),
      ],
      [
        3,
        toReportResult(
          outcome(3, 'b', 'failed', { errorCode: 'card_declined', reason: '-the bank said no' }),
        ),
      ],
      [10, toReportResult(outcome(10, 'f', 'cancelled'))],
    ]);
    expect(readFileSync(final.reportPath)).toEqual(writeReport(expected, results));
    expect(final.summary).toBe(summarizeReport(expected, results).text);
    expect(existsSync(join(s.done, 'march.csv'))).toBe(true);
    expect(existsSync(join(s.processing, 'march.csv'))).toBe(false);
    // Every invalid reason is there: the shared reference names both rows, the misplaced TOTAL its rule.
    const report = readFileSync(final.reportPath, 'latin1');
    expect(report).not.toContain('report-buckets');
    expect(expected.rows.find((r) => r.row === 6)!.errors.map((e) => e.rule)).toContain(
      'reference_duplicate',
    );
    expect(readdirSync(join(s.dataDir, 'store', s.meta.batchId, 'report-work'))).toEqual([]);
  });

  it('a UTF-8 file with a BOM, cancelled: the rows never started are cancelled, once however often it runs', async () => {
    const rows = [cardRow({ reference: 'a' }), cardRow({ reference: 'b' }), cardRow({ reference: 'c' })];
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(csvText(rows))]);
    const s = storeBatch(bytes, {});
    appendOutcomes(s.dataDir, s.meta.batchId, [outcome(3, 'b', 'succeeded')]);
    const first = await finishBatch(s.dataDir, s.meta.batchId, { cancelled: true });
    const again = await finishBatch(s.dataDir, s.meta.batchId, { cancelled: true });
    expect(again).toEqual(first);
    const expected = loadBatch(bytes);
    const cancelled = (row: number, reference: string) =>
      toReportResult({
        ...outcome(row, reference, 'cancelled'),
        errorCode: 'batch_cancelled',
        reason: 'the batch was cancelled before this payout started',
      });
    const results = new Map([
      [2, cancelled(2, 'a')],
      [3, toReportResult(outcome(3, 'b', 'succeeded'))],
      [4, cancelled(4, 'c')],
    ]);
    expect(readFileSync(first.reportPath)).toEqual(writeReport(expected, results));
    expect(first.summary).toBe(summarizeReport(expected, results).text);
  });

  it('a file that is gone is a non-retryable BatchReportFailed naming the batch, not an endless retry', async () => {
    const s = storeBatch(utf8(csvText([cardRow({ reference: 'a' })])), {});
    rmSync(join(s.processing, 'march.csv'));
    const failure = await finishBatch(s.dataDir, s.meta.batchId, { cancelled: false }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: REPORT_FAILED, nonRetryable: true });
    expect((failure as Error).message).toMatch(
      /^the report of batch batch-00000000000000aa could not be written: /,
    );
    expect(existsSync(join(s.done, 'march.report.csv'))).toBe(false);
  });
});
