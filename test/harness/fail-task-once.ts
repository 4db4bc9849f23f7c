/**
 * Test-only workflow interceptor, bundled before payrun's own (so it wraps them): a payout whose workflow
 * id contains FAIL_TASK_MARK fails its workflow task after its ending is known, again on every retry of
 * that task, until the test signals RELEASE_SIGNAL. So the code after the ending runs more than once for
 * one run, as when a task fails or its completion is refused in production.
 */
import {
  defineSignal,
  setHandler,
  workflowInfo,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

export const FAIL_TASK_MARK = 'fail-task-after-ending';
export const RELEASE_SIGNAL = 'testReleaseEnding';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        const { workflowType, workflowId } = workflowInfo();
        if (workflowType !== 'payoutWorkflow' || !workflowId.includes(FAIL_TASK_MARK)) return next(input);
        let released = false;
        setHandler(defineSignal(RELEASE_SIGNAL), () => void (released = true));
        const result = await next(input);
        // A plain Error fails the workflow task, not the workflow: the server schedules the task again.
        if (!released) throw new Error('test: this workflow task fails after the payout ended');
        return result;
      },
    },
  ],
});
