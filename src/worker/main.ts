import { NativeConnection } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createBankClient } from '../bank';
import { loadBankConfig, loadPayerConfig, loadTemporalConfig, type TemporalConfig } from '../config';
import { buildActivities } from './activities';
import { createLogger } from '../logger';
import { createPayrunWorker } from './create';
import { installTemporalRuntime } from './runtime';

const log = createLogger('worker');

/** Connects with patience: in compose the worker may start before the server is ready. */
export async function connectWithRetry(address: string, timeoutMs = 120_000): Promise<NativeConnection> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await NativeConnection.connect({ address });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log.warn({ address, attempt, err: String(err) }, 'Temporal not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * attempt)));
    }
  }
}

/** Runs a payrun worker until SIGINT/SIGTERM, then drains in-flight tasks and exits. */
export async function runWorker(config: TemporalConfig = loadTemporalConfig()): Promise<void> {
  const bank = createBankClient(loadBankConfig(), createLogger('bank'));
  const payer = loadPayerConfig();
  installTemporalRuntime();
  const connection = await connectWithRetry(config.address);
  const clientConnection = await Connection.connect({ address: config.address });
  try {
    const client = new Client({ connection: clientConnection, namespace: config.namespace });
    const worker = await createPayrunWorker({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      activities: buildActivities({ bank, payer, client, taskQueue: config.taskQueue }),
    });
    log.info(
      { address: config.address, namespace: config.namespace, taskQueue: config.taskQueue },
      'worker started',
    );
    await worker.run();
    log.info('worker stopped');
  } finally {
    await bank.close();
    await clientConnection.close();
    await connection.close();
  }
}
