import { createBankClient } from '../bank';
import {
  ConfigError,
  loadBankConfig,
  loadEventEndpoints,
  loadPayerConfig,
  loadProcessSettings,
  loadWorkerMetricsConfig,
  loadWorkflowIdSecret,
  WORKER_METRICS_VARS,
  type WorkerMetricsConfig,
} from '../config';
import { buildActivities } from './activities';
import { nudgeDelivery } from '../events/nudge';
import { loadWorkerBankKey } from './bank-key';
import { boundHeapGrowth, loadHeapGrowingPercent } from './heap';
import { createLogger } from '../logger';
import {
  addProcessMetrics,
  serveMetrics,
  registerScheduledMetrics,
  WorkerMetrics,
  type MetricsServer,
  type ReadyProbe,
} from '../metrics';
import { connectClient, loadTemporalSetup, type TemporalSetup } from '../temporal';
import { connectNative } from '../temporal/worker-options';
import { loadPolicy, PolicySource } from '../policy/file';
import { createPayrunWorker } from './create';
import { runUntilStopped } from './lifecycle';
import { PollReadiness } from './readiness';
import { installTemporalRuntime } from './runtime';

const log = createLogger('worker');

/** In compose the worker may start before the server is ready. */
const CONNECT_PATIENCE_MS = 120_000;

/**
 * Runs a payrun worker until SIGINT/SIGTERM, then drains in-flight tasks and exits; exits 1 within
 * seconds when the SDK stops the worker by itself (src/worker/lifecycle.ts), so a supervisor restarts it.
 */
export async function runWorker(setup: TemporalSetup = loadTemporalSetup()): Promise<void> {
  const { config } = setup;
  // Used deep inside a batch (PAYRUN_LANG, PAYRUN_MAX_PAYOUT, the workflow id secret of every taxpayer
  // check): a bad one stops the start instead, naming the variable.
  loadProcessSettings();
  loadWorkflowIdSecret();
  const heapGrowingPercent = loadHeapGrowingPercent();
  boundHeapGrowth(heapGrowingPercent);
  const bank = createBankClient(loadBankConfig(), createLogger('bank'));
  const payer = loadPayerConfig();
  // Read once now so a broken policy stops the start with its line named; later edits are read as they come.
  const policy = loadPolicy();
  const policySource = new PolicySource();
  const bankPublicKey = loadWorkerBankKey(undefined, (message) => log.warn(message));
  const metricsConfig = loadWorkerMetricsConfig();
  // Each endpoint checked now (URL, secret file, types), naming the endpoint: exit 2 before connecting.
  const endpoints = loadEventEndpoints();
  installTemporalRuntime(undefined, {
    sdkMetricsAddress: metricsConfig.sdk,
    sdkMetricsVariable: WORKER_METRICS_VARS.sdk,
    shutdownSignals: [],
  });
  const metrics = new WorkerMetrics();
  addProcessMetrics(metrics.registry);
  let readiness: PollReadiness | undefined;
  const ready = () => readiness?.current() ?? { ready: false, reasons: ['the worker is starting'] };
  const metricsServer = await startMetricsServer(metrics, metricsConfig, ready);
  const connection = await connectNative(setup, CONNECT_PATIENCE_MS);
  const { client, close: closeClient } = await connectClient(setup, { retryForMs: CONNECT_PATIENCE_MS });
  registerScheduledMetrics(metrics.registry, client, config.taskQueue);
  try {
    const worker = await createPayrunWorker({
      connection,
      setup,
      taskQueue: config.taskQueue,
      activities: buildActivities({
        bank,
        payer,
        client,
        taskQueue: config.taskQueue,
        bankPublicKey,
        metrics,
        policy: policySource,
        events: { endpoints },
      }),
      metrics,
    });
    readiness = new PollReadiness(worker, client, config.namespace);
    log.info(
      {
        address: config.address,
        namespace: config.namespace,
        taskQueue: config.taskQueue,
        payloadKey: setup.ring.current.id,
        metrics: metricsServer?.url ?? 'off',
        sdkMetrics: metricsConfig.sdk ?? 'off',
        signedWebhooks: bankPublicKey ? 'checked' : 'read from session/status',
        heapGrowingPercent: heapGrowingPercent ?? 'v8',
        policy: `${policy.path} (${policy.view.version}, ${policy.view.people.length} people)`,
      },
      'worker started',
    );
    readiness.start();
    // What a worker that died left in the outbox goes out now, not at the next batch's first row.
    await nudgeDelivery(client, config.taskQueue, endpoints);
    const failed = await runUntilStopped(worker, { log, hopeless: () => readiness?.gone });
    // The command then exits 1 (src/cli/index.ts), if the exit timer has not ended the process already.
    if (failed) throw new Error(`the Temporal worker stopped by itself: ${failed}`);
    log.info('worker stopped');
  } finally {
    readiness?.stop();
    await metricsServer?.close();
    await bank.close();
    await closeClient();
    await connection.close();
  }
}

/**
 * A worker whose `/metrics` and `/ready` cannot be served is one nobody can watch or probe: an address
 * in use (a second worker on the host with the defaults) stops the start, exit 2 naming the variable.
 */
async function startMetricsServer(
  metrics: WorkerMetrics,
  config: WorkerMetricsConfig,
  ready: ReadyProbe,
): Promise<MetricsServer | undefined> {
  if (!config.payrun) return undefined;
  const address = `${config.payrun.host}:${config.payrun.port}`;
  try {
    return await serveMetrics(metrics.registry, config.payrun.host, config.payrun.port, ready);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError([
      `${WORKER_METRICS_VARS.payrun} (${address}): cannot serve /metrics and /ready there (${reason}); set a free host:port or off`,
    ]);
  }
}
