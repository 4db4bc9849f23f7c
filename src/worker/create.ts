import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import * as diagnostics from '../../activities/diagnostics';

/** The one place a payrun worker is assembled: workflows bundle, activities, task queue. */
export interface PayrunWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities?: WorkerOptions['activities'];
  /** Pre-built bundle (tests reuse one to save seconds per worker). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  overrides?: Partial<WorkerOptions>;
}

export const WORKFLOWS_PATH = require.resolve('../../workflows');

export async function createPayrunWorker(opts: PayrunWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: { ...diagnostics, ...opts.activities },
    ...opts.overrides,
  });
}
