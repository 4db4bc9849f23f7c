import { createPublicKey } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { WorkerMetrics } from '../../src/metrics';
import { PolicySource } from '../../src/policy/file';
import { buildActivities } from '../../src/worker/activities';
import { WORKFLOWS_PATH } from '../../src/worker/create';
import { BUNDLE_OPTIONS, WORKFLOW_INTERCEPTOR_MODULES } from '../../src/temporal/worker-options';
import { workTimeout } from '../harness/budget';
import { FAIL_TASK_MARK, RELEASE_SIGNAL } from '../harness/fail-task-once';
import { FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, TEST_PAYER, type Stack } from '../harness/stack';
import { quietLogger, startTestWorker, type TestWorker } from '../harness/temporal';
import { waitFor } from '../harness/wait';

const { EVENT_TYPE_WORKFLOW_TASK_FAILED } = temporal.api.enums.v1.EventType;

/** Counts every sink call that reaches the worker, so the test sees the ending's code did run twice. */
class SinkCallsSeen extends WorkerMetrics {
  calls = 0;
  override payoutFinished(state: string, runId: string): void {
    this.calls++;
    super.payoutFinished(state, runId);
  }
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

// A bundle of its own (its interceptor first) and one payout: the set-up and the test, each as the load allows.
const SETUP_TIMEOUT = workTimeout({ units: 1, perUnitMs: 60_000, floorMs: 120_000 });
const PAYOUT_TIMEOUT = workTimeout({ units: 1, perUnitMs: 60_000, floorMs: 120_000 });

/**
 * The issue-40 miscount: a workflow task that fails after the payout's ending is known is run again
 * from the start, and the metrics sink (not called on replay, but this part is not replay) fired twice
 * for one paid payout. A test-only interceptor (test/harness/fail-task-once.ts) fails that task until
 * the test releases it; the worker's counter must still say one.
 */
describe('a payout whose last workflow task is retried', () => {
  let stack: Stack;
  let worker: TestWorker | undefined;
  const metrics = new SinkCallsSeen();
  beforeAll(async () => {
    stack = await startStack({ inProcessWorker: false });
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: quietLogger,
      ...BUNDLE_OPTIONS,
      // First: the test's interceptor wraps payrun's, so it fails the task after the sink was called.
      workflowInterceptorModules: [
        require.resolve('../harness/fail-task-once'),
        ...WORKFLOW_INTERCEPTOR_MODULES,
      ],
    });
    worker = await startTestWorker({
      taskQueue: stack.taskQueue,
      workflowBundle,
      metrics,
      activities: buildActivities({
        bank: stack.bank,
        payer: TEST_PAYER,
        client: stack.client,
        taskQueue: stack.taskQueue,
        bankPublicKey: createPublicKey(stack.sandbox.bankPublicKeyPem),
        policy: new PolicySource({ PAYRUN_POLICY_FILE: stack.people.file }),
      }),
    });
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await worker?.stop();
    await stack?.stop();
  });

  it(
    'is counted once though its ending ran twice',
    async () => {
      const request = payoutRequest({ reference: `${FAIL_TASK_MARK}-${Date.now().toString(36)}` });
      const handle = await startPayout(stack, request, FAST);
      const failedTasks = async () =>
        ((await handle.fetchHistory()).events ?? []).filter(
          (e) => e.eventType === EVENT_TYPE_WORKFLOW_TASK_FAILED,
        ).length;
      await waitFor(
        async () => (await failedTasks()) >= 1,
        PAYOUT_TIMEOUT,
        'the workflow task failed after the ending',
      );
      await handle.signal(RELEASE_SIGNAL);
      const status = await outcome(handle);
      expect(status.state).toBe('succeeded');
      expect(paidEntries(stack, request.reference)).toHaveLength(1);

      // The ending's code ran at least twice for this one run (the failed task and the one that completed).
      expect(metrics.calls).toBeGreaterThanOrEqual(2);
      const text = await metrics.render();
      expect(sample(text, 'payrun_payouts_finished_total{state="succeeded"}')).toBe(1);
    },
    2 * PAYOUT_TIMEOUT,
  );
});
