import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import * as diagnostics from '../../activities/diagnostics';
import type { TemporalSetup } from '../temporal';
import { workerConnectionOptions } from '../temporal/worker-options';

/** The one place a payrun worker is assembled: workflows bundle, activities, task queue, converter. */
export interface PayrunWorkerOptions {
  connection: NativeConnection;
  /** Namespace and payload keys: the worker encrypts everything it sends to Temporal with them. */
  setup: TemporalSetup;
  taskQueue: string;
  activities?: WorkerOptions['activities'];
  /** Pre-built bundle (tests reuse one to save seconds per worker); build it with BUNDLE_OPTIONS. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The benchmark's no-codec baseline only (see src/temporal/connection.ts). */
  dataConverterOverride?: DataConverter;
  overrides?: Partial<WorkerOptions>;
}

export const WORKFLOWS_PATH = require.resolve('../../workflows');

export async function createPayrunWorker(opts: PayrunWorkerOptions): Promise<Worker> {
  return Worker.create({
    ...workerConnectionOptions(opts.setup, opts.connection, opts.dataConverterOverride),
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: { ...diagnostics, ...opts.activities },
    ...opts.overrides,
  });
}
