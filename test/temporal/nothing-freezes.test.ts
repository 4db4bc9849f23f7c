import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { lookupPayout } from '../../src/batch/services/lookup';
import { reconcile } from '../../src/cli/payout';
import { readHistory } from '../../src/batch/services/run-history';
import { payoutWorkflowId, type PayoutInput } from '../../workflows/payout/contract';
import { refundWorkflowId, type RefundStatus } from '../../workflows/refund/contract';
import { useLanguage } from '../harness/lang';
import { refundEntries, succeededPayment } from '../harness/payments';
import { FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// Issue 34: a payout or refund started by hand and terminated during its first workflow task froze its
// reference for good, and three TerminateExisting restarts of a refund froze it with an age of "more than
// 23 hours" for runs seconds old. A run that ended before its first task completed moved nothing.
describe('nothing freezes for good', () => {
  useLanguage('en');
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  /** A task queue no worker serves: the test takes the run's first task itself and never completes it. */
  const nobodysQueue = () => `nobody-${randomUUID()}`;
  const takeFirstTask = async (queue: string, workflowId: string) => {
    // A long poll: it answers as soon as the task is there (already, as the run was just started).
    const task = await stack.client.withDeadline(Date.now() + 70_000, () =>
      stack.client.workflowService.pollWorkflowTaskQueue({
        namespace: stack.client.options.namespace,
        taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity: 'a worker that dies during its first task',
      }),
    );
    expect(task.workflowExecution?.workflowId).toBe(workflowId);
  };
  /** The history of the run this handle started (not the latest run of its id). */
  const eventsOf = (handle: WorkflowHandle & { firstExecutionRunId: string }) =>
    readHistory(stack.client, handle.workflowId, handle.firstExecutionRunId);
  /** The run was terminated with its first task started and none completed: what the issue describes. */
  const expectEndedDuringFirstTask = async (handle: WorkflowHandle & { firstExecutionRunId: string }) => {
    const events = await eventsOf(handle);
    expect(events.some((e) => e.workflowTaskStartedEventAttributes)).toBe(true);
    expect(events.some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);
    expect(events.at(-1)?.workflowExecutionTerminatedEventAttributes).toBeTruthy();
  };

  it('a payout terminated during its first task leaves the reference payable, then paid exactly once', async () => {
    const request = payoutRequest({ selfEmployed: false });
    const workflowId = payoutWorkflowId(request.reference);
    const queue = nobodysQueue();
    const first = await stack.client.workflow.start('payoutWorkflow', {
      taskQueue: queue,
      workflowId,
      args: [{ request, options: FAST } satisfies PayoutInput],
    });
    await takeFirstTask(queue, workflowId);
    await first.terminate('terminated during its first task');
    await expectEndedDuringFirstTask(first);

    expect(await lookupPayout(stack.client, workflowId)).toMatchObject({ kind: 'not_paid' });
    // reconcile says what it found and how the reference gets paid, never "run reconcile".
    const answer = await reconcile(stack.client, request.reference, stack.taskQueue);
    expect(answer).toMatch(/not paid/);
    expect(answer).not.toMatch(/payout reconcile/);

    expect(await outcome(await startPayout(stack, request))).toMatchObject({ state: 'succeeded' });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  const startRefund = (input: object, taskQueue = stack.taskQueue, terminateExisting = false) =>
    stack.client.workflow.start('refundWorkflow', {
      taskQueue,
      workflowId: refundWorkflowId((input as { reference: string }).reference),
      args: [input],
      ...(terminateExisting ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING' as const } : {}),
    });

  it('a refund terminated during its first task leaves the reference refundable, then refunded once', async () => {
    const sessionId = await succeededPayment(stack.bank, 40_000);
    const reference = `rf-${randomUUID()}`;
    const input = { reference, sessionId, amount: 10_000, pollAfterMs: 1_000 };
    const queue = nobodysQueue();
    const first = await startRefund(input, queue);
    await takeFirstTask(queue, refundWorkflowId(reference));
    await first.terminate('terminated during its first task');
    await expectEndedDuringFirstTask(first);

    const again = await startRefund(input);
    expect(await again.result()).toMatchObject({ state: 'refunded' });
    expect(refundEntries(stack, sessionId)).toHaveLength(1);
  });

  it('three concurrent TerminateExisting restarts do not freeze a refund, and ages are told true', async () => {
    const sessionId = await succeededPayment(stack.bank, 40_000);
    const reference = `rf-${randomUUID()}`;
    const input = { reference, sessionId, amount: 12_000, pollAfterMs: 1_000 };
    const workflowId = refundWorkflowId(reference);
    // The first run's session/refund never gets through: it is in doubt with no refund id of its own.
    await stack.sandbox.setFaults({ http: [{ kind: 'error_before', paths: ['/api/v1/session/refund'] }] });
    try {
      const first = await startRefund(input);
      await waitFor(
        async () =>
          (await eventsOf(first)).some(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'refundSession',
          ),
        60_000,
        'the first run asks the bank',
      );
      // One restart is caught in its first task (a deterministic instance of what the race makes).
      const queue = nobodysQueue();
      const caught = await startRefund(input, queue, true);
      await takeFirstTask(queue, workflowId);
      await Promise.all([1, 2, 3].map(() => startRefund(input, stack.taskQueue, true)));
      await expectEndedDuringFirstTask(caught);
    } finally {
      await stack.sandbox.setFaults({});
    }
    const result = (await stack.client.workflow.getHandle(workflowId).result()) as RefundStatus;
    expect(result.state).toBe('refunded');
    expect(refundEntries(stack, sessionId)).toHaveLength(1);
    // The first run is followed with its true age (seconds, not "more than 23 hours").
    const ages = result.notes.filter((n) => / ago/.test(n));
    expect(ages.join('\n')).not.toMatch(/23 h/);
    expect(ages.some((n) => /may have asked for a refund \d+ s ago/.test(n))).toBe(true);
    for (const n of ages) expect(n).toMatch(/ \d+ s ago/);
  });
});
