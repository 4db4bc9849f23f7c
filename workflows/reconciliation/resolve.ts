import { ApplicationFailure } from '@temporalio/workflow';
import { parseDifferenceResolution, type ResolvedDifference } from './contract';
import { resolveSignedDifference } from './activities';

/**
 * An operator's signed resolution of a reconciliation difference, judged by the worker under the
 * worker's policy file and recorded with its evidence (the signed statement, the policy's version) —
 * the command line that sends it decides nothing. The statement is the input, so the history keeps it too.
 */
export async function resolveDifferenceWorkflow(raw: unknown): Promise<ResolvedDifference> {
  const parsed = parseDifferenceResolution(raw);
  if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.reason, 'invalid_input');
  return resolveSignedDifference(parsed.value);
}
