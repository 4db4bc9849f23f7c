import { WorkflowFailedError, type Client } from '@temporalio/client';
import { runsOfWorkflowIdQuery } from '../src/batch/services/lookup';
import { runEvidence, schedulesActivity } from '../src/batch/services/run-history';
import {
  readRefundEnding,
  refundStatusQuery,
  type EarlierRefundRun,
  type RefundStatus,
} from '../workflows/refund/contract';

/** What one other run of a refund workflow id did with the money, read from what the server recorded. */
async function classifyRefundRun(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<EarlierRefundRun> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const closeStatus = (await handle.describe()).status.name;
  if (closeStatus === 'RUNNING') return { runId, closeStatus, verdict: 'running' };
  if (closeStatus === 'COMPLETED')
    return { runId, closeStatus, verdict: 'refunded', status: (await handle.result()) as RefundStatus };
  if (closeStatus === 'FAILED') {
    const ending = await handle.result().then(
      () => undefined,
      (err: unknown) => readRefundEnding(err instanceof WorkflowFailedError ? err.cause : undefined),
    );
    if (ending && ending.kind !== 'in_doubt')
      return { runId, closeStatus, verdict: ending.kind, status: ending.status };
  }
  // Money moves only on session/refund, a regular activity: a run that never scheduled it asked nothing.
  const evidence = await runEvidence(client, workflowId, runId, schedulesActivity('refundSession'));
  const times = {
    ...(evidence.startedAt ? { startedAt: evidence.startedAt.toISOString() } : {}),
    ...(evidence.closedAt ? { closedAt: evidence.closedAt.toISOString() } : {}),
  };
  if (evidence.movedNothing) return { runId, closeStatus, verdict: 'not_refunded', ...times };
  let status: RefundStatus | undefined;
  try {
    status = await handle.query(refundStatusQuery); // the worker replays the closed run
  } catch {
    status = undefined;
  }
  return {
    runId,
    closeStatus,
    verdict: 'in_doubt',
    ...(status ? { status } : {}),
    ...(!evidence.movedNothing && evidence.firstBankCallAt
      ? { firstBankCallAt: evidence.firstBankCallAt.toISOString() }
      : {}),
    ...times,
  };
}

/** The refund workflow's look-up of its own earlier runs (Temporal only, no bank call). */
export function createRefundRunActivities(client: Client) {
  return {
    async earlierRefundRuns(input: {
      workflowId: string;
      currentRunId: string;
    }): Promise<EarlierRefundRun[]> {
      const runs: EarlierRefundRun[] = [];
      for await (const wf of client.workflow.list({ query: runsOfWorkflowIdQuery(input.workflowId) }))
        if (wf.runId !== input.currentRunId)
          runs.push(await classifyRefundRun(client, input.workflowId, wf.runId));
      return runs;
    },
  };
}
