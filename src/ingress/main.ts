import {
  loadIngressConfig,
  loadTemporalConfig,
  loadWebhookVerificationConfig,
  loadProcessSettings,
  parseBankPublicKey,
  type Env,
  type IngressConfig,
  type TemporalConfig,
  type WebhookVerificationConfig,
} from '../config';
import { createLogger } from '../logger';
import { addProcessMetrics } from '../metrics';
import { createIngress } from './server';
import { connectClient, loadKeyRing, type TemporalSetup } from '../temporal';

const log = createLogger('ingress');

/** Like the worker: in compose the ingress may start before the Temporal server answers. */
export function connectClientWithRetry(setup: TemporalSetup, timeoutMs = 120_000) {
  return connectClient(setup, { retryForMs: timeoutMs });
}

export interface IngressEnv {
  temporal: TemporalConfig;
  ingress: IngressConfig;
  verification: WebhookVerificationConfig;
}

/** All three sections at once, so every bad variable is reported in one go by whichever throws first. */
export function loadIngressEnv(env?: Env): IngressEnv {
  loadProcessSettings(env);
  return {
    temporal: loadTemporalConfig(env),
    ingress: loadIngressConfig(env),
    verification: loadWebhookVerificationConfig(env),
  };
}

/** `payrun ingress`: serves bank webhooks until SIGINT/SIGTERM, then drains and disconnects. */
export async function runIngressFromEnv(env: IngressEnv = loadIngressEnv()): Promise<void> {
  const bankPublicKey = parseBankPublicKey(env.verification);
  const { headersTimeoutMs, requestTimeoutMs, bodyIdleTimeoutMs, keepAliveTimeoutMs, maxConnections } =
    env.ingress;
  const limits = {
    headersTimeoutMs,
    requestTimeoutMs,
    bodyIdleTimeoutMs,
    keepAliveTimeoutMs,
    maxConnections,
  };
  const { client, close: closeTemporal } = await connectClientWithRetry({
    config: env.temporal,
    ring: loadKeyRing(),
  });
  const ingress = createIngress({
    client,
    taskQueue: env.temporal.taskQueue,
    bankPublicKeyPem: bankPublicKey,
    allowedIps: env.ingress.allowedIps,
    maxBodyBytes: env.ingress.maxBodyBytes,
    limits,
    logger: log,
  });
  addProcessMetrics(ingress.metrics.registry);
  const listening = await ingress.listen(env.ingress.port, env.ingress.host, {
    port: env.ingress.internalPort,
    host: env.ingress.internalHost,
  });
  log.info(
    {
      url: listening.url,
      internalUrl: listening.internalUrl,
      temporal: env.temporal.address,
      namespace: env.temporal.namespace,
      taskQueue: env.temporal.taskQueue,
      bankEnv: env.verification.environment,
      allowedIps: env.ingress.allowedIps,
      limits,
    },
    'ingress listening',
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  log.info({ signal }, 'ingress stopping: finishing in-flight webhooks');
  try {
    await listening.close();
  } finally {
    await closeTemporal();
  }
  log.info('ingress stopped');
}
