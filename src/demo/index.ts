import { join, resolve } from 'node:path';
import { preferredPort, startDevServer, type RunningDevServer } from '../devserver';
import { runConnectivityCheck } from '../cli/doctor';
import { startComponent, type Component } from './processes';

/* eslint-disable no-console -- the demo talks to a person at a terminal */

const DATA_DIR = resolve(process.env.PAYRUN_DATA_DIR ?? '.payrun');
const KEEP = process.env.KEEP === '1';

async function main(): Promise<void> {
  const logDir = join(DATA_DIR, 'logs');
  const running: Component[] = [];
  console.log(`payrun demo — data in ${DATA_DIR}, logs in ${logDir}`);
  const server: RunningDevServer = await startDevServer({
    port: await preferredPort(7233),
    uiPort: await preferredPort(8233),
    dbFile: join(DATA_DIR, 'temporal.db'),
    logFile: join(logDir, 'temporal.log'),
  });
  console.log(`Temporal dev server at ${server.address}; Temporal UI at ${server.uiUrl}`);
  const stopAll = async () => {
    for (const c of running.reverse()) await c.stop();
    await server.stop();
  };
  process.once('SIGINT', () => {
    console.log('\nstopping…');
    stopAll().then(() => process.exit(130));
  });

  const env = { TEMPORAL_ADDRESS: server.address, PAYRUN_TASK_QUEUE: 'payrun' };
  const worker = startComponent('worker', ['worker'], env, logDir);
  running.push(worker);
  console.log('worker started; running the connectivity-check workflow end to end…');

  const result = await Promise.race([
    runConnectivityCheck(server.address, 'default', 'payrun'),
    worker.unexpectedExit,
  ]).catch(async (err) => {
    await stopAll();
    throw err;
  });
  console.log(
    `ok: ${result.workflowId} ran its activity on worker pid ${result.worker.pid} and took the signal from "${result.acknowledgedBy}".`,
  );
  console.log(`See it in the Temporal UI: ${server.uiUrl}/namespaces/default/workflows/${result.workflowId}`);

  if (KEEP) {
    console.log('Everything keeps running (KEEP=1). Press Ctrl-C to stop the worker and the dev server.');
    await new Promise(() => undefined);
  }
  console.log(
    'Stopping the worker and the dev server (run `make demo KEEP=1` to keep them running for the UI).',
  );
  await stopAll();
}

main().catch((err) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
