/**
 * `payrun batch cancel-scheduled`: a whole date's sleeping rows of one batch cancelled in one command (issue
 * 42). Each goes through the payout's own `cancelPayout` Update, the one `payrun payout cancel` sends, so the
 * payout decides (a row that woke meanwhile refuses once money may move) and records who asked; its
 * recipient ledger then releases the reservation. A row is asked only when its own workflow says it sleeps
 * for that date in that batch: the store's rows name the candidates, the workflows have the last word.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { CancelCommand } from '../../../workflows/shared/operator-contract';
import {
  cancelPayoutUpdate,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutState,
} from '../../../workflows/payout/contract';
import { moscowDate } from '../../domain';
import type { BatchStore } from '../store/contract';

export interface CancelScheduledResult {
  /** Rows of the batch the file dates for that day. */
  rows: number;
  cancelled: string[];
  /** Rows of that date no longer asleep (woke, paid, already cancelled, never started), by their state. */
  notAsleep: { reference: string; state: PayoutState | 'not_started' }[];
  /** Rows whose payout refused the cancel (it woke between the look and the ask), with its answer. */
  refused: { reference: string; reason: string }[];
}

/** Payouts asked at once: a date of thousands of rows is not asked one by one, nor all together. */
const AT_ONCE = 8;

export async function cancelScheduledDate(
  client: Client,
  store: BatchStore,
  batchId: string,
  payOn: string,
  command: CancelCommand,
): Promise<CancelScheduledResult> {
  const result: CancelScheduledResult = { rows: 0, cancelled: [], notAsleep: [], refused: [] };
  const meta = await store.readMeta(batchId);
  for (let chunk = 0; chunk < meta.chunkCount; chunk++) {
    const references = (await store.readChunk(batchId, chunk))
      .filter((r) => r.request.payOn === payOn)
      .map((r) => r.request.reference);
    result.rows += references.length;
    for (let i = 0; i < references.length; i += AT_ONCE)
      await Promise.all(
        references
          .slice(i, i + AT_ONCE)
          .map((reference) => cancelOne(client, batchId, payOn, reference, command, result)),
      );
  }
  return result;
}

async function cancelOne(
  client: Client,
  batchId: string,
  payOn: string,
  reference: string,
  command: CancelCommand,
  result: CancelScheduledResult,
): Promise<void> {
  const handle = client.workflow.getHandle(payoutWorkflowId(reference));
  let status;
  try {
    status = await handle.query(payoutStatusQuery);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    result.notAsleep.push({ reference, state: 'not_started' });
    return;
  }
  const sleepsThatDay =
    status.state === 'scheduled' &&
    status.batchId === batchId &&
    status.timestamps.scheduledFor !== undefined &&
    moscowDate(Date.parse(status.timestamps.scheduledFor)) === payOn;
  if (!sleepsThatDay) {
    result.notAsleep.push({ reference, state: status.state });
    return;
  }
  try {
    await handle.executeUpdate(cancelPayoutUpdate, { args: [command] });
    result.cancelled.push(reference);
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    result.refused.push({ reference, reason: err.cause?.message ?? err.message });
  }
}
