import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { BatchPaths } from '../../src/batch/services/config';
import { REPORT_FAILED } from '../../src/batch/services/finish';
import { batchApproveSignal } from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
import { breakOutcomes } from '../harness/broken-store';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';

/**
 * A report that cannot be written however often it is tried fails the batch, saying why, instead of
 * retrying for ever with the batch stuck and its file in processing/ (issue 25: the stack overflow of a
 * 143 000-row report did exactly that). Here the batch store's outcomes are broken before the batch pays.
 */
describe('a report that cannot be written', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('fails the batch with a non-retryable BatchReportFailed naming the batch; the payouts are paid once', async () => {
    const references = [`${uniquePrefix()}-1`];
    const r = await dropAndSubmit(
      stack,
      paths,
      'broken-store.csv',
      batchCsv(references.map((reference) => ({ reference }))),
      {
        batchOptions: { requireApproval: true },
      },
    );
    if (r.status !== 'started') throw new Error(`submitted: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(handle, (p) => p.phase === 'awaiting_approval');
    await breakOutcomes(paths.dataDir, r.batchId);
    await handle.signal(batchApproveSignal, await batchDecision(stack, paths.dataDir, r.batchId, 'approver'));

    const failure = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const activity = (failure as WorkflowFailedError).cause;
    expect(activity).toBeInstanceOf(ActivityFailure);
    const cause = (activity as ActivityFailure).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: REPORT_FAILED, nonRetryable: true });
    expect((cause as Error).message).toContain(`the report of batch ${r.batchId} could not be written`);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1]);
  });
});
