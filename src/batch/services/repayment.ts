/**
 * The one check a re-payment (a row under a derived reference, REF~r1) passes wherever it is judged:
 * when its batch reads the row (activities/batch.ts) and when the payout itself is authorised, just
 * before money moves (authorize.ts).
 */
import type { Client } from '@temporalio/client';
import type { PayoutRequest } from '../../domain/payout';
import { parseDerivedReference } from '../../domain/rules';
import { provenReturnOf } from '../../returns/read';
import { payoutWorkflowId } from '../../../workflows/payout/contract';
import type { BatchStore } from '../store/contract';
import { lookupPayout } from './lookup';

/**
 * Why a row under a derived reference (REF~r1) may not be paid, if it may not: the reference it
 * re-pays (REF, or REF~r1 for REF~r2) must have come back, as its completed return workflow holds on
 * the bank's word; and that payout must be this batch's own row, paid by this batch's line of retries
 * (the batch it retries, or that one's), for the same amount. Otherwise a second approved file with a
 * row of the same reference, or a hand-started payout, could borrow another file's return to be paid.
 * A file's own reference needs nothing (undefined).
 */
export async function unprovenRepayment(
  client: Client,
  taskQueue: string,
  store: BatchStore,
  batchId: string,
  request: PayoutRequest,
): Promise<string | undefined> {
  const derived = parseDerivedReference(request.reference);
  if (!derived) return undefined;
  const previous = derived.repay === 1 ? derived.original : `${derived.original}~r${derived.repay - 1}`;
  const lookup = await lookupPayout(client, payoutWorkflowId(previous));
  const sessionId = lookup.kind === 'paid' ? lookup.status.bank.sessionId : undefined;
  if (lookup.kind !== 'paid' || !sessionId)
    return `${previous} is not a paid payout: there is no return to pay again`;
  const paidBy = lookup.status.batchId;
  if (!paidBy || !(await retriedBatches(store, batchId)).includes(paidBy))
    return `${previous} was not paid by a batch this one retries`;
  if (lookup.status.amount !== request.amount)
    return `${previous} was paid for another amount than this row's`;
  const proven = await provenReturnOf(client, taskQueue, sessionId);
  if (!proven.ok) return proven.why;
  if (!proven.closed || proven.status.payout?.reference !== previous)
    return `the return of ${previous} has not completed`;
  return undefined;
}

/** The batches `batchId` retries, nearest first (its previous batch, that one's, …), at most 32. */
async function retriedBatches(store: BatchStore, batchId: string): Promise<string[]> {
  const line: string[] = [];
  let meta = await store.readMeta(batchId);
  while (meta.previousBatchId && line.length < 32 && !line.includes(meta.previousBatchId)) {
    line.push(meta.previousBatchId);
    meta = await store.readMeta(meta.previousBatchId);
  }
  return line;
}
