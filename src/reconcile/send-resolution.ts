/**
 * Sends a signed resolution to the worker, which judges it under its own policy file and records it with
 * its evidence (./resolve.ts). One path for `payrun reconcile resolve` and the console's reconciliation page.
 */
import {
  ActivityFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
} from '@temporalio/client';
import { t } from '../i18n';
import { commandAnswer } from '../i18n/operator-answers';
import type { DifferenceStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import {
  resolveDifferenceWorkflowId,
  type ResolvedDifference,
} from '../../workflows/reconciliation/contract';

/** The worker did not close the difference: someone else is resolving it, or it refused (why, in words). */
export class ResolutionNotSent extends Error {}

export async function sendResolution(
  client: Client,
  taskQueue: string,
  signed: SignedStatement<DifferenceStatement>,
): Promise<ResolvedDifference> {
  const { account, key } = signed.statement;
  try {
    const handle = await client.workflow.start('resolveDifferenceWorkflow', {
      workflowId: resolveDifferenceWorkflowId(account, key),
      taskQueue,
      args: [signed],
    });
    return (await handle.result()) as ResolvedDifference;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      throw new ResolutionNotSent(t('reconcile.resolve.busy', { key }));
    if (err instanceof WorkflowFailedError) {
      // The worker's refusal is the activity's failure, inside the workflow's.
      const why =
        (err.cause instanceof ActivityFailure ? err.cause.cause : err.cause)?.message ?? err.message;
      throw new ResolutionNotSent(t('reconcile.resolve.refused', { key, why: commandAnswer(why) }));
    }
    throw err;
  }
}
