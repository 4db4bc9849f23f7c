import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  PAYOUT_RETURN_WORKFLOW_TYPE,
  payoutReturnStatusQuery,
  payoutReturnWorkflowId,
  type PayoutReturnStatus,
} from '../../workflows/payout-return/contract';

export type ReturnReading =
  { ok: true; status: PayoutReturnStatus; closed: boolean } | { ok: false; why: string };

/**
 * The return of a session, believed only from a run of payrun's return workflow on payrun's task queue
 * that has held the bank's word (verified or returned): a workflow of another type started under the
 * id, or a run still checking its evidence, proves nothing.
 */
export async function provenReturnOf(
  client: Client,
  taskQueue: string,
  sessionId: string,
): Promise<ReturnReading> {
  const handle = client.workflow.getHandle(payoutReturnWorkflowId(taskQueue, sessionId));
  let described;
  try {
    described = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { ok: false, why: `no return of session ${sessionId}` };
    throw err;
  }
  if (described.type !== PAYOUT_RETURN_WORKFLOW_TYPE || described.taskQueue !== taskQueue)
    return { ok: false, why: `${described.workflowId} is not payrun's return workflow` };
  const closed = described.status.name !== 'RUNNING';
  if (closed && described.status.name !== 'COMPLETED')
    return { ok: false, why: `the return of session ${sessionId} ended ${described.status.name}` };
  const status = closed
    ? ((await handle.result()) as PayoutReturnStatus)
    : await handle.query(payoutReturnStatusQuery);
  if (status.state === 'verifying' || status.proven.length === 0 || status.sessionId !== sessionId)
    return { ok: false, why: `the return of session ${sessionId} holds no evidence of the bank yet` };
  return { ok: true, status, closed };
}
