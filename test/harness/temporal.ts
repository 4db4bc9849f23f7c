import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  NativeConnection,
  type Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createPayrunWorker, WORKFLOWS_PATH, type PayrunWorkerOptions } from '../../src/worker/create';
import { installTemporalRuntime } from '../../src/worker/runtime';

installTemporalRuntime('ERROR');

/** Address of the run's shared dev server (started by global-setup.ts). */
export function temporalAddress(): string {
  const address = process.env.PAYRUN_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'no Temporal dev server: run this test through jest so test/harness/global-setup.ts starts one',
    );
  return address;
}

export const NAMESPACE = 'default';

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: temporalAddress() });
  return { client: new Client({ connection, namespace: NAMESPACE }), close: () => connection.close() };
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundling takes seconds on two cores; one bundle serves every worker of a test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  return bundle;
}

const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface TestWorker {
  taskQueue: string;
  worker: Worker;
  stop(): Promise<void>;
}

/** A real worker on a task queue of its own, running until stop(). */
export async function startTestWorker(
  opts: Partial<Omit<PayrunWorkerOptions, 'connection' | 'namespace'>> = {},
): Promise<TestWorker> {
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const taskQueue = opts.taskQueue ?? `test-${randomUUID()}`;
  const worker = await createPayrunWorker({
    connection,
    namespace: NAMESPACE,
    taskQueue,
    workflowBundle: await workflowBundle(),
    ...opts,
  });
  const running = worker.run();
  return {
    taskQueue,
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
