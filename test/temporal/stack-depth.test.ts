import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { BUNDLE_OPTIONS } from '../../src/temporal/worker-options';
import type { sandboxStackDepth } from '../harness/stack-depth-workflow';
import { connectClient, quietLogger, startTestWorker, type TestWorker } from '../harness/temporal';

/**
 * The workflow sandbox's stack traces are kept short (workflows/shared/stack-depth.ts, preloaded with the
 * bundle options every worker uses): the SDK captures one for every promise workflow code creates. The
 * module is not imported here: it would shorten this process's own traces too. 4 = WORKFLOW_STACK_FRAMES.
 */
const FRAMES = 4;

let temporal: Awaited<ReturnType<typeof connectClient>>;
let worker: TestWorker;

beforeAll(async () => {
  temporal = await connectClient();
  worker = await startTestWorker({
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('../harness/stack-depth-workflow'),
      logger: quietLogger,
      ...BUNDLE_OPTIONS,
    }),
    activities: {},
  });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await temporal?.close();
});

it('workflow code captures at most the preloaded number of stack frames', async () => {
  const depth = await temporal.client.workflow.execute<typeof sandboxStackDepth>('sandboxStackDepth', {
    workflowId: `stack-depth-${randomUUID()}`,
    taskQueue: worker.taskQueue,
  });
  expect(depth).toEqual({ limit: FRAMES, frames: FRAMES });
});
