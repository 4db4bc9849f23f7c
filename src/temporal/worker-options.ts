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
 * workflow: every workflow module, through the index that exports each workflow type. Evaluated per
 * workflow, zod and the schemas cost ~4 ms a payout once (docs/performance-history.md), and the
 * workflow modules themselves, contracts of workflows a payout never runs included, ~5 ms a row still
 * (issue 38). Safe to share because they hold no per-workflow state: a workflow's state lives in the
 * objects its run creates, schemas are immutable and parsing is a pure function of its input. The SDK
 * freezes shared modules, which a mutation would turn into an error in every test, not into a leak
 * between workflows. That freeze reaches everything these modules export, src/domain's too, and zod
 * mutates some of its own objects when used (the `lastIndex` of a `.regex()` pattern, a schema's `parse`
 * on first run): so they export predicates and schema builders, never a RegExp or a schema instance
 * (issue 24; test/domain/frozen.test.ts, test/workflows/frozen-exports.test.ts).
 */
export const PRELOADED_WORKFLOW_MODULES = [
  'zod',
  // How deep the sandbox's stack traces go: set before the SDK freezes its globals.
  require.resolve('../../workflows/shared/stack-depth'),
  require.resolve('../../workflows'),
];

/** bundleWorkflowCode options a pre-built bundle needs: workflow failures encrypted too, the metrics interceptor. */
export const BUNDLE_OPTIONS = {
  failureConverterPath: FAILURE_CONVERTER_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  preloadModules: PRELOADED_WORKFLOW_MODULES,
} as const;
