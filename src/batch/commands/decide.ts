import type { Client } from '@temporalio/client';
import type { BatchStatement, SignedStatement } from '../../../workflows/shared/approval-contract';
import { approveBatchUpdate, batchProgressQuery, rejectBatchUpdate } from '../../../workflows/batch/contract';

/** How long a decision waits for a batch that has just started to read its file's record. */
const JUDGED_WITHIN_MS = 60_000;
const LOOK_EVERY_MS = 250;

/**
 * Sends an approval or rejection to a batch: the CLI's, the demo's and the console's one way. A batch
 * checks a decision only once it has read its file's record and the policy (its first moments), so a
 * decision sent right after submit waits for that first; the batch's answer (or its validator's refusal,
 * as a WorkflowUpdateFailedError) comes back as it is.
 */
export async function sendBatchDecision(
  client: Client,
  batchId: string,
  signed: SignedStatement<BatchStatement>,
): Promise<string> {
  const handle = client.workflow.getHandle(batchId);
  const until = Date.now() + JUDGED_WITHIN_MS;
  for (;;) {
    const p = await handle.query(batchProgressQuery);
    if (p.approval?.because !== undefined || p.phase === 'done' || Date.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
  const update = signed.statement.decision === 'reject' ? rejectBatchUpdate : approveBatchUpdate;
  return handle.executeUpdate(update, { args: [signed] });
}
