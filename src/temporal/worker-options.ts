import { NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { connectWithRetry, securityOptions, type TemporalSetup } from './connection';
import { FAILURE_CONVERTER_PATH, payrunDataConverter } from './converter';

/**
 * Worker-side wiring, apart from connection.ts so the CLI and the ingress never load the worker's
 * native bridge.
 */
export async function connectNative(setup: TemporalSetup, retryForMs = 0): Promise<NativeConnection> {
  const { config } = setup;
  const security = securityOptions(config);
  return connectWithRetry(
    config.address,
    () => NativeConnection.connect({ address: config.address, ...security }),
    retryForMs,
  );
}

/** What every payrun Worker.create gets: the connection, namespace and the encrypting converter. */
export function workerConnectionOptions(
  setup: TemporalSetup,
  connection: NativeConnection,
  dataConverterOverride?: DataConverter,
): Pick<WorkerOptions, 'connection' | 'namespace' | 'dataConverter'> {
  return {
    connection,
    namespace: setup.config.namespace,
    dataConverter: dataConverterOverride ?? payrunDataConverter(setup.ring),
  };
}

/** Bundled beside the workflows: payout final states leave the sandbox through a sink, for the worker's metrics. */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../worker/workflow-metrics')];

/**
 * Modules evaluated once per worker thread and shared by every workflow in it, instead of once per
 * workflow: zod and the input schemas built with it cost ~4 ms of module evaluation per payout otherwise
 * (docs/performance.md). Safe to share because they hold no per-workflow state: schemas are immutable
 * and parsing is a pure function of its input. The SDK freezes shared modules, which a mutation would
 * turn into an error in every test, not into a leak between workflows. That freeze reaches everything
 * these modules export, src/domain's too, and zod mutates some of its own objects when used (the
 * `lastIndex` of a `.regex()` pattern, a schema's `parse` on first run): so they export predicates and
 * schema builders, never a RegExp or a schema instance (issue 24; test/domain/frozen.test.ts).
 */
export const PRELOADED_WORKFLOW_MODULES = [
  'zod',
  ...[
    // How deep the sandbox's stack traces go: set before the SDK freezes its globals.
    'shared/stack-depth',
    'shared/parse',
    'shared/bank-event-contract',
    'shared/operator-contract',
    'payout/contract',
    'batch/contract',
    'taxpayer/contract',
    'connectivity-check/contract',
    'refund/contract',
    'webhook-inbox/contract',
    'recipient-ledger/contract',
    // Schemas of workflows a payout never runs, built at module level: left out, every payout built them
    // again (about 3.5 ms of a row's CPU, issue 38).
    'recurring-payrun/contract',
    'reconciliation/contract',
    'event-outbox/contract',
    'payout-return/contract',
  ].map((module) => require.resolve(`../../workflows/${module}`)),
];

/** bundleWorkflowCode options a pre-built bundle needs: workflow failures encrypted too, the metrics interceptor. */
export const BUNDLE_OPTIONS = {
  failureConverterPath: FAILURE_CONVERTER_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  preloadModules: PRELOADED_WORKFLOW_MODULES,
} as const;
