import { Client, Connection } from '@temporalio/client';
import {
  loadIngressConfig,
  loadTemporalConfig,
  loadWebhookVerificationConfig,
  type IngressConfig,
  type TemporalConfig,
  type WebhookVerificationConfig,
} from '../config';
import { createLogger } from '../logger';
import { createIngress } from './server';

const log = createLogger('ingress');

/** Like the worker: in compose the ingress may start before the Temporal server answers. */
export async function connectClientWithRetry(address: string, timeoutMs = 120_000): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await Connection.connect({ address });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log.warn({ address, attempt, err: String(err) }, 'Temporal not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * attempt)));
    }
  }
}

export interface IngressEnv {
  temporal: TemporalConfig;
  ingress: IngressConfig;
  verification: WebhookVerificationConfig;
}

/** All three sections at once, so every bad variable is reported in one go by whichever throws first. */
export function loadIngressEnv(env: Record<string, string | undefined> = process.env): IngressEnv {
  return {
    temporal: loadTemporalConfig(env),
    ingress: loadIngressConfig(env),
    verification: loadWebhookVerificationConfig(env),
  };
}

/** `payrun ingress`: serves bank webhooks until SIGINT/SIGTERM, then drains and disconnects. */
export async function runIngressFromEnv(env: IngressEnv = loadIngressEnv()): Promise<void> {
  const connection = await connectClientWithRetry(env.temporal.address);
  const client = new Client({ connection, namespace: env.temporal.namespace });
  const ingress = createIngress({
    client,
    taskQueue: env.temporal.taskQueue,
    bankPublicKeyPem: env.verification.bankPublicKeyPem,
    allowedIps: env.ingress.allowedIps,
    maxBodyBytes: env.ingress.maxBodyBytes,
    logger: log,
  });
  const listening = await ingress.listen(env.ingress.port, env.ingress.host);
  log.info(
    {
      url: listening.url,
      temporal: env.temporal.address,
      namespace: env.temporal.namespace,
      taskQueue: env.temporal.taskQueue,
      bankEnv: env.verification.environment,
      allowedIps: env.ingress.allowedIps,
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
    await connection.close();
  }
  log.info('ingress stopped');
}
