import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  PAYOUT_RETURN_WORKFLOW_TYPE,
  payoutReturnWorkflowId,
  RETURN_ID_REUSE,
  returnEvidenceSignal,
  type ReturnEvidence,
} from '../../workflows/payout-return/contract';

/**
 * Hands the bank's word of a return to the session's one return workflow: signal-with-start on the
 * session's id, so the webhook and the statement, in either order or at once, make one return. A
 * return already completed refuses the start (RETURN_ID_REUSE): the evidence is then not needed.
 */
export async function startPayoutReturn(
  client: Client,
  taskQueue: string,
  sessionId: string,
  evidence: ReturnEvidence,
): Promise<{ workflowId: string; already: boolean }> {
  const workflowId = payoutReturnWorkflowId(taskQueue, sessionId);
  try {
    // By type name: the ingress never loads workflow code.
    await client.workflow.signalWithStart(PAYOUT_RETURN_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      workflowIdReusePolicy: RETURN_ID_REUSE,
      signal: returnEvidenceSignal,
      signalArgs: [evidence],
      args: [{ sessionId }],
    });
    return { workflowId, already: false };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, already: true };
    throw err;
  }
}
