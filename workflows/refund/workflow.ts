import { setHandler, workflowInfo } from '@temporalio/workflow';
import { bankEventSignal } from '../shared/bank-event-contract';
import { invalidInput } from '../shared/parse';
import { parseRefundInput, refundStatusQuery, refundWorkflowId, type RefundStatus } from './contract';
import { RefundRun } from './run';

/**
 * Refunds a succeeded payment session, fully or partly, at most once per reference whoever starts it:
 * input and workflow id checked, then the run (./run.ts). docs/payouts.md, "A refund".
 */
export async function refundWorkflow(raw: unknown): Promise<RefundStatus> {
  const parsed = parseRefundInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  const { workflowId } = workflowInfo();
  const expectedId = refundWorkflowId(input.reference);
  if (workflowId !== expectedId)
    throw invalidInput(
      `workflow id must be ${expectedId} for reference ${input.reference}, not ${workflowId}`,
    );
  const run = new RefundRun(input);
  setHandler(refundStatusQuery, () => run.status);
  setHandler(bankEventSignal, (raw) => run.onBankEvent(raw));
  return run.run();
}
