import { setHandler, workflowInfo } from '@temporalio/workflow';
import {
  parseTaxpayerInput,
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  type TaxpayerWorkflowInput,
} from './contract';
import { TaxpayerRun } from './run';
import { invalidInput } from '../shared/parse';
import { workflowNow } from '../shared/time';

export type { TaxpayerWorkflowInput } from './contract';

/**
 * One workflow per tax number (id from its hash, not the number itself): it serialises the bank's
 * taxpayer checks so npd/check is never called for one tax number more than once per 30 seconds,
 * across every worker process, and reuses a fresh verdict for every payout that asks.
 */
export async function taxpayerWorkflow(raw: TaxpayerWorkflowInput): Promise<void> {
  // A refusing verdict comes only from this workflow's own check (or its own continue-as-new): a
  // hand-started run given one, or any verdict dated in the future, is refused before anyone can read it.
  const parsed = parseTaxpayerInput(raw, {
    continued: workflowInfo().continuedFromExecutionRunId !== undefined,
    now: workflowNow(),
  });
  if (!parsed.ok) throw invalidInput(parsed.message);
  const run = new TaxpayerRun(parsed.value);
  setHandler(taxpayerCheckRequestSignal, (req) => run.requested(req));
  setHandler(taxpayerVerdictQuery, () => run.state.cached);
  return run.run();
}
