/**
 * A paid batch of any size in a batch store, as finishBatch finds it: the file in processing/, its
 * accepted rows in chunks, and outcomes in the order payouts ended (not row order), every row state
 * there is. Shared by bench/report.ts and test/batch/report-memory.test.ts.
 *
 * Row i (2 … rows+1): every 1 000th has an amount that is not money (refused, unreadable), every
 * 1 000th + 500 shares its reference with the row before it (both refused); the accepted rows end,
 * by turns, in each final state, and one in ten has no outcome (cancelled by finishBatch, or not
 * processed).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PayoutRequest } from '../src/domain';
import { appendOutcomes, writeBatch } from '../src/batch/store/files';
import { TEST_CARDS, TEST_INNS } from '../src/sandbox';
import type { BatchRowOutcome, BatchRowState } from '../workflows/batch/contract';

const HEADER =
  'reference,last_name,first_name,inn,method,card_number,amount,currency,service_name,self_employed';
/** The state of accepted row n by turns; undefined: no outcome. */
const STATES: (BatchRowState | undefined)[] = [
  'succeeded',
  'credited',
  'failed',
  'rejected',
  'returned',
  'expired',
  'already_paid',
  'reference_conflict',
  'needs_attention',
  undefined,
];
const WRITE_ROWS = 10_000;

export interface ReportFixture {
  dataDir: string;
  batchId: string;
  filePath: string;
}

export function makeReportFixture(
  root: string,
  rows: number,
  batchId = 'batch-00000000000000ff',
): ReportFixture {
  const dataDir = join(root, 'data');
  const processing = join(root, 'processing');
  const done = join(root, 'done');
  mkdirSync(processing, { recursive: true });
  mkdirSync(done, { recursive: true });
  const filePath = join(processing, `large-${rows}.csv`);
  writeFileSync(filePath, HEADER + '\n');

  const base: Omit<PayoutRequest, 'reference' | 'amount'> = {
    recipient: { lastName: 'Иванова', firstName: 'Анна', taxReference: TEST_INNS.SELF_EMPLOYED_LINKED },
    method: { type: 'card', cardNumber: TEST_CARDS.SUCCESS },
    currency: 'rub',
    serviceName: 'Дизайн',
    selfEmployed: true,
  };
  const stored: { row: number; request: PayoutRequest }[] = [];
  let lines: string[] = [];
  let totalKopecks = 0;
  for (let i = 1; i <= rows; i++) {
    const row = i + 1;
    const unreadable = i % 1000 === 0;
    const shared = i % 1000 === 500 || i % 1000 === 501;
    const reference = shared ? `r-${i - (i % 1000 === 501 ? 1 : 0)}` : `r-${i}`;
    const kopecks = ((i * 7919) % 5_000_000) + 100;
    const amount = unreadable
      ? 'сто'
      : `${Math.floor(kopecks / 100)},${String(kopecks % 100).padStart(2, '0')}`;
    lines.push(
      `${reference},Иванова,Анна,${TEST_INNS.SELF_EMPLOYED_LINKED},card,${TEST_CARDS.SUCCESS},"${amount}",RUB,Дизайн,yes`,
    );
    if (!unreadable && !shared) {
      stored.push({ row, request: { ...base, reference, amount: kopecks } });
      totalKopecks += kopecks;
    }
    if (lines.length >= WRITE_ROWS) {
      appendFileSync(filePath, lines.join('\n') + '\n');
      lines = [];
    }
  }
  appendFileSync(filePath, lines.join('\n') + '\n');

  writeBatch(
    dataDir,
    {
      batchId,
      rootBatchId: batchId,
      contentHash: 'f'.repeat(64),
      fileSha256: 'f'.repeat(64),
      fileName: `large-${rows}.csv`,
      sourcePath: filePath,
      doneDir: done,
      doneName: `large-${rows}.csv`,
      reportName: `large-${rows}`,
      load: { policy: 'partial' },
      rowCount: stored.length,
      invalidRows: rows - stored.length,
      totalKopecks,
      submittedAt: new Date().toISOString(),
    } as Parameters<typeof writeBatch>[1],
    stored,
  );

  // Outcomes as payouts end, not in row order: slices of 5 000 rows, each slice's rows last first.
  const SLICE = 5000;
  for (let start = 0; start < stored.length; start += SLICE) {
    const outcomes: BatchRowOutcome[] = [];
    for (const { row, request } of stored.slice(start, start + SLICE).reverse()) {
      const state = STATES[row % STATES.length];
      if (!state) continue;
      outcomes.push({
        row,
        reference: request.reference,
        amount: request.amount,
        state,
        ...(state === 'succeeded' || state === 'credited'
          ? { sessionId: `ps_${row}`, payoutId: `po_${row}`, receiptLink: `https://receipts.example/${row}` }
          : { errorCode: `${state}_code`, reason: `the bank said ${state}` }),
      });
    }
    appendOutcomes(dataDir, batchId, outcomes);
  }
  return { dataDir, batchId, filePath };
}
