import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { loadTemporalConfig } from '../src/config';
import { connectClient, KeyRing } from '../src/temporal';
import { connectNative } from '../src/temporal/worker-options';
import { startDevServer } from '../src/devserver';
import { createPayrunWorker } from '../src/worker/create';
import { installTemporalRuntime } from '../src/worker/runtime';
import { connectivityCheckWorkflow } from '../workflows/connectivity-check/workflow';

/**
 * How fast the dev server's SQLite store takes workflows with different pragmas: N connectivity-check
 * workflows (one activity each) started at once and awaited. Usage: node dist/bench/devserver-sqlite.js [N]
 */
const N = Number(process.argv[2] ?? 300);
const VARIANTS: { name: string; inMemory?: boolean; wal: boolean }[] = [
  { name: 'SQLite file, default journal', wal: false },
  { name: 'SQLite file, WAL + synchronous=NORMAL', wal: true },
  { name: 'SQLite in memory', inMemory: true, wal: false },
];

async function measure(variant: (typeof VARIANTS)[number]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-'));
  const server = await startDevServer(
    variant.inMemory ? {} : { dbFile: join(dir, 'db'), walPragmas: variant.wal },
  );
  // A throwaway key: the bench measures SQLite, but wires Temporal exactly as payrun does.
  const setup = {
    config: loadTemporalConfig({ TEMPORAL_ADDRESS: server.address }),
    ring: new KeyRing([{ id: 'bench', key: randomBytes(32) }]),
  };
  const nc = await connectNative(setup);
  const taskQueue = `bench-${randomUUID()}`;
  const worker = await createPayrunWorker({ connection: nc, setup, taskQueue });
  const running = worker.run();
  const { client, close } = await connectClient(setup);
  const started = Date.now();
  const handles = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      client.workflow.start(connectivityCheckWorkflow, {
        taskQueue,
        workflowId: `bench-${i}-${randomUUID()}`,
        args: [{ awaitAcknowledgement: false }],
      }),
    ),
  );
  await Promise.all(handles.map((h) => h.result()));
  const ms = Date.now() - started;
  worker.shutdown();
  await running;
  await close();
  await nc.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function main() {
  installTemporalRuntime('ERROR');
  for (const v of VARIANTS) {
    const ms = await measure(v);
    console.log(`${v.name}: ${N} workflows in ${ms} ms = ${Math.round((N * 1000) / ms)} workflows/s`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
