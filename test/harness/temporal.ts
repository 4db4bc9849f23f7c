import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import {
  createPayrunWorker,
  WORKFLOWS_PATH,
  type PayrunWorker,
  type PayrunWorkerOptions,
} from '../../src/worker/create';
import { installTemporalRuntime } from '../../src/worker/runtime';
import { loadTemporalConfig } from '../../src/config';
import {
  connectClient as connectPayrunClient,
  EncryptionCodec,
  loadKeyRing,
  type TemporalSetup,
} from '../../src/temporal';
import { BUNDLE_OPTIONS, connectNative } from '../../src/temporal/worker-options';
import { defaultPayloadConverter, type DataConverter, type Payload } from '@temporalio/common';

installTemporalRuntime('ERROR');

/** Address of the run's shared dev server (started by global-setup.ts). */
export function temporalAddress(): string {
  const address = process.env.PAYRUN_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error(
      'no Temporal dev server: run this test through jest so test/harness/global-setup.ts starts one',
    );
  return address;
}

export const NAMESPACE = 'default';

/**
 * The run's dev server with the payload keys of this process's environment (global-setup.ts sets
 * PAYRUN_PAYLOAD_KEYS), wired exactly as payrun's own processes are. `env` overrides variables,
 * e.g. another PAYRUN_PAYLOAD_KEYS for a key-rotation test.
 */
export function testSetup(env: Record<string, string | undefined> = {}): TemporalSetup {
  const merged = {
    ...process.env,
    TEMPORAL_NAMESPACE: NAMESPACE,
    ...env,
    TEMPORAL_ADDRESS: temporalAddress(),
  };
  return { config: loadTemporalConfig(merged), ring: loadKeyRing(merged) };
}

export async function connectClient(
  opts: { setup?: TemporalSetup; dataConverterOverride?: DataConverter } = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
  const { client, close } = await connectPayrunClient(opts.setup ?? testSetup(), {
    dataConverterOverride: opts.dataConverterOverride,
  });
  return { client, close };
}

/**
 * A client WITHOUT the codec: it sees what the server stores and what `temporal workflow show`
 * prints to anyone without the codec endpoint. For tests that prove histories hold no plaintext.
 */
export async function connectRawClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: temporalAddress() });
  return { client: new Client({ connection, namespace: NAMESPACE }), close: () => connection.close() };
}

/** A payload from a fetched (raw, encrypted) history, decrypted with this process's keys and parsed. */
export async function decodePayloadJson<T>(payload: Payload): Promise<T> {
  const [decoded] = await new EncryptionCodec(testSetup().ring).decode([payload]);
  return defaultPayloadConverter.fromPayload<T>(decoded!);
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundling takes seconds on two cores; one bundle serves every worker of a test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger, ...BUNDLE_OPTIONS });
  return bundle;
}

export const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface TestWorker {
  taskQueue: string;
  worker: PayrunWorker;
  stop(): Promise<void>;
}

/** A real worker on a task queue of its own, running until stop(). */
export async function startTestWorker(
  opts: Partial<Omit<PayrunWorkerOptions, 'connection'>> = {},
): Promise<TestWorker> {
  const setup = opts.setup ?? testSetup();
  const connection = await connectNative(setup);
  const taskQueue = opts.taskQueue ?? `test-${randomUUID()}`;
  const worker = await createPayrunWorker({
    connection,
    setup,
    taskQueue,
    workflowBundle: await workflowBundle(),
    ...opts,
  });
  const running = worker.run();
  // The quiet logger hides the SDK's own report: a worker that stops polling under load says why here.
  running.catch((err: unknown) =>
    process.stderr.write(
      `[harness] worker on ${taskQueue} failed: ${(err as Error)?.stack ?? String(err)}\n`,
    ),
  );
  // Once: a test that replaces the worker stops it before its stack does.
  let stopped: Promise<void> | undefined;
  return {
    taskQueue,
    worker,
    stop() {
      stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      })();
      return stopped;
    },
  };
}
