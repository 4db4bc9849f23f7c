import { setHandler, workflowInfo } from '@temporalio/workflow';
import { batchCommands } from './commands';
import { BatchRun } from './run';
import type { BatchCarry } from './state';
import {
  batchFundsChangedSignal,
  batchProgressQuery,
  batchRecordChangedSignal,
  parseBatchWorkflowInput,
  payoutSettledSignal,
  payoutSleepSignal,
  type BatchResult,
  type BatchWorkflowInput,
} from './contract';
import { handleOperatorCommands } from '../shared/operator-command';
import { invalidInput } from '../shared/parse';

/**
 * One batch file: a child payout workflow per valid row (a sliding window of them), each reference
 * paid at most once by the server's ID-reuse policy, counters carried over continue-as-new and the
 * rows' results kept in the batch store. The steps are BatchRun's (workflows/batch/run.ts); this wires
 * the query, signals and Updates to it. docs/batches.md describes it.
 */
export async function batchWorkflow(raw: BatchWorkflowInput): Promise<BatchResult> {
  const parsed = parseBatchWorkflowInput(raw, { continued: !!workflowInfo().continuedFromExecutionRunId });
  if (!parsed.ok) throw invalidInput(parsed.message);
  // Validation checked carry's shape; only the batch itself sets it, on continue-as-new.
  const input = parsed.value as BatchWorkflowInput<BatchCarry>;
  const { batchId } = input;
  if (workflowInfo().workflowId !== batchId)
    throw invalidInput(`workflow id must be the batch id ${batchId}, not ${workflowInfo().workflowId}`);

  // Registered in this order, which a recorded history replays: a signal or Update that came before
  // its handler existed is delivered as the handler is set.
  const run = new BatchRun(input);
  setHandler(batchProgressQuery, () => run.progress);
  handleOperatorCommands(batchCommands(run));
  setHandler(batchFundsChangedSignal, () => run.fundsChangedSignalled());
  setHandler(payoutSettledSignal, (report) => run.window.payoutSettled(report));
  setHandler(batchRecordChangedSignal, () => run.recordChangedSignalled());
  setHandler(payoutSleepSignal, (s) => run.window.payoutSleep(s));
  return run.run();
}
