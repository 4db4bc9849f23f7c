import { setHandler, workflowInfo } from '@temporalio/workflow';
import { invalidInput } from '../shared/parse';
import {
  parsePayoutReturnInput,
  payoutReturnStatusQuery,
  payoutReturnWorkflowId,
  returnEvidenceSignal,
  type PayoutReturnStatus,
} from './contract';
import { PayoutReturnRun } from './run';

/**
 * A payout the recipient's bank sent back, once per bank session whichever of the bank's words comes
 * first (a late payment_refunded webhook, a credit on the statement): checked, then the row marked
 * returned, the receipt put on the annulment list and the income taken back. docs/payouts.md, "A return".
 */
export async function payoutReturnWorkflow(raw: unknown): Promise<PayoutReturnStatus> {
  const parsed = parsePayoutReturnInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const expected = payoutReturnWorkflowId(workflowInfo().taskQueue, parsed.value.sessionId);
  if (workflowInfo().workflowId !== expected)
    throw invalidInput(`workflow id must be ${expected}, not ${workflowInfo().workflowId}`);
  const run = new PayoutReturnRun(parsed.value);
  setHandler(returnEvidenceSignal, (evidence) => run.onEvidence(evidence));
  setHandler(payoutReturnStatusQuery, () => run.status);
  return run.run();
}
