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

/** bundleWorkflowCode options a pre-built bundle needs: workflow failures encrypted too, the metrics interceptor. */
export const BUNDLE_OPTIONS = {
  failureConverterPath: FAILURE_CONVERTER_PATH,
  workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
} as const;
