import { createBankClient } from '../bank';
import { loadBankConfig, loadPayerConfig } from '../config';
import { buildActivities } from './activities';
import { createLogger } from '../logger';
import { connectClient, loadTemporalSetup, type TemporalSetup } from '../temporal';
import { connectNative } from '../temporal/worker-options';
import { createPayrunWorker } from './create';
import { installTemporalRuntime } from './runtime';

const log = createLogger('worker');

/** In compose the worker may start before the server is ready. */
const CONNECT_PATIENCE_MS = 120_000;

/** Runs a payrun worker until SIGINT/SIGTERM, then drains in-flight tasks and exits. */
export async function runWorker(setup: TemporalSetup = loadTemporalSetup()): Promise<void> {
  const { config } = setup;
  const bank = createBankClient(loadBankConfig(), createLogger('bank'));
  const payer = loadPayerConfig();
  installTemporalRuntime();
  const connection = await connectNative(setup, CONNECT_PATIENCE_MS);
  const { client, close: closeClient } = await connectClient(setup, { retryForMs: CONNECT_PATIENCE_MS });
  try {
    const worker = await createPayrunWorker({
      connection,
      setup,
      taskQueue: config.taskQueue,
      activities: buildActivities({ bank, payer, client, taskQueue: config.taskQueue }),
    });
    log.info(
      {
        address: config.address,
        namespace: config.namespace,
        taskQueue: config.taskQueue,
        payloadKey: setup.ring.current.id,
      },
      'worker started',
    );
    await worker.run();
    log.info('worker stopped');
  } finally {
    await bank.close();
    await closeClient();
    await connection.close();
  }
}
