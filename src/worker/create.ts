import { NativeConnection, Worker, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import * as diagnostics from '../../activities/diagnostics';
import type { WorkerMetrics } from '../metrics';
import type { TemporalSetup } from '../temporal';
import {
  PRELOADED_WORKFLOW_MODULES,
  WORKFLOW_INTERCEPTOR_MODULES,
  workerConnectionOptions,
} from '../temporal/worker-options';
import type { PayrunMetricsSinks } from './workflow-metrics';

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
  /** Where payout workflows' final states are counted (src/worker/workflow-metrics.ts). */
  metrics?: WorkerMetrics;
  overrides?: Partial<WorkerOptions>;
}

export const WORKFLOWS_PATH = require.resolve('../../workflows');

export async function createPayrunWorker(opts: PayrunWorkerOptions): Promise<Worker> {
  // Always registered, counted or not: a sink the bundle calls but the worker lacks is logged as an error.
  const sinks: InjectedSinks<PayrunMetricsSinks> = {
    payrunMetrics: {
      payoutFinished: { fn: (_info, state) => opts.metrics?.payoutFinished(state), callDuringReplay: false },
    },
  };
  return Worker.create({
    ...workerConnectionOptions(opts.setup, opts.connection, opts.dataConverterOverride),
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : {
          workflowsPath: WORKFLOWS_PATH,
          interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES },
          bundlerOptions: { preloadModules: PRELOADED_WORKFLOW_MODULES },
        }),
    activities: { ...diagnostics, ...opts.activities },
    sinks,
    ...opts.overrides,
  });
}
