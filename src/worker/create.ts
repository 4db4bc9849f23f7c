import {
  NativeConnection,
  Worker,
  type InjectedSinks,
  type State,
  type WorkerOptions,
} from '@temporalio/worker';
import { recipientTaskQueue } from '../../workflows/recipient-ledger/contract';
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

/**
 * A payrun worker is two Temporal workers in one process: one on payrun's task queue, and one on the
 * recipients' queue beside it, where each person's ledger runs. A payout reserves in its recipient's ledger
 * from inside a local activity, which holds the payout's workflow task (and its slot) until the answer
 * comes; with the ledgers on the same queue, fifty payouts doing that at once left no slot for the ledger's
 * own task, and every one waited out its timeout. Their own queue gives the ledgers their own slots.
 */
export interface PayrunWorker {
  /** The worker on payrun's task queue (the recipients' worker follows its state). */
  readonly main: Worker;
  /** Both: the main one and the recipients' (their states and pollers, for readiness and the exit watch). */
  readonly workers: readonly Worker[];
  run(): Promise<void>;
  shutdown(): void;
  getState(): State;
}

export async function createPayrunWorker(opts: PayrunWorkerOptions): Promise<PayrunWorker> {
  const main = await createOneWorker(opts, opts.taskQueue);
  const ledgers = await createOneWorker(opts, recipientTaskQueue(opts.taskQueue));
  return {
    main,
    workers: [main, ledgers],
    getState: () => main.getState(),
    shutdown() {
      for (const w of [main, ledgers]) if (w.getState() === 'RUNNING') w.shutdown();
    },
    async run() {
      // Either stopping stops both: a process with half a worker would strand payouts or ledgers.
      const stopBoth = () => {
        for (const w of [main, ledgers]) if (w.getState() === 'RUNNING') w.shutdown();
      };
      const results = await Promise.allSettled([main, ledgers].map((w) => w.run().finally(stopBoth)));
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
  };
}

async function createOneWorker(opts: PayrunWorkerOptions, taskQueue: string): Promise<Worker> {
  // Always registered, counted or not: a sink the bundle calls but the worker lacks is logged as an error.
  const sinks: InjectedSinks<PayrunMetricsSinks> = {
    payrunMetrics: {
      // By run id: a retried workflow task calls the sink again for the same ending.
      payoutFinished: {
        fn: (info, state) => opts.metrics?.payoutFinished(state, info.runId),
        callDuringReplay: false,
      },
    },
  };
  return Worker.create({
    ...workerConnectionOptions(opts.setup, opts.connection, opts.dataConverterOverride),
    taskQueue,
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
