import { execFileSync, spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type * as diagnostics from '../../activities/diagnostics';
import type { buildActivities } from '../../src/worker/activities';
import { createPayrunWorker } from '../../src/worker/create';
import { loadTemporalSetup, type TemporalSetup } from '../../src/temporal';
import { payrunDataConverter } from '../../src/temporal/converter';
import { BUNDLE_OPTIONS } from '../../src/temporal/worker-options';
import { SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';
import { quietLogger, temporalAddress, workflowBundle } from './temporal';
import { TEST_ONLY_PAYLOAD_KEYS } from './test-only-payload-key';
import { waitFor } from './wait';

/**
 * The middle test layer (test/workflows-time/): payrun's real workflow bundle on Temporal's
 * time-skipping test server, with stub activities under the real activity names. Hours and days of
 * workflow time pass in seconds, so deadlines, silent banks and continue-as-new are reached directly.
 * The server is the Java SDK's, launched by the script scripts/ensure-test-server.sh writes (the
 * SDK's own download of a native binary cannot run here).
 */

/** Every activity a payrun worker registers, by its real name and type: a renamed one breaks the stubs' compilation. */
export type PayrunActivities = ReturnType<typeof buildActivities> & typeof diagnostics;
export type StubActivities = Partial<PayrunActivities>;

/** One call a stub activity took, in order: its name and its (first) argument. */
export interface StubCall {
  name: keyof PayrunActivities;
  input: unknown;
}

const ROOT = path.resolve(__dirname, '../..');

/** The launcher's path: the project's setup writes it once (quiet when already done). */
export function testServerLauncher(): string {
  return (
    process.env.PAYRUN_TEST_SERVER_LAUNCHER ??
    execFileSync(path.join(ROOT, 'scripts/ensure-test-server.sh'), { encoding: 'utf8' }).trim()
  );
}

export interface TimeSkipping {
  env: TestWorkflowEnvironment;
  /** A client with payrun's encrypting converter; its `result()` lets the server skip time while it waits. */
  client: Client;
  /**
   * A plain client on the same server, for stub activities: the time-skipping client's `result()` unlocks
   * and relocks time around its wait, which from inside an activity leaves time locked for the test.
   */
  reader: Client;
  setup: TemporalSetup;
  /** Stops each stub worker still running (see withStubWorker). */
  stopWorkers: Set<() => Promise<void>>;
  teardown(): Promise<void>;
}

/**
 * The SDK's own launch (createTimeSkipping) gives the server 5 s to listen, which a JVM on two loaded cores
 * misses; so the server is started here and waited for until it answers or LAUNCH_PATIENCE_MS pass, and the
 * SDK's environment is made on it as on a server it launched (its `create`, not typed public, takes that).
 */
const LAUNCH_PATIENCE_MS = 120_000;
const createOnServer = (
  TestWorkflowEnvironment as unknown as {
    create(opts: Record<string, unknown>): Promise<TestWorkflowEnvironment>;
  }
).create.bind(TestWorkflowEnvironment);

async function launchTestServer(): Promise<{ address: string; stop(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
  const child = spawn(testServerLauncher(), [String(port)], { stdio: 'ignore', detached: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const answers = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.destroy() !== undefined));
      socket.once('error', () => resolve(false));
    });
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`the time-skipping test server exited ${child.exitCode}`);
        return answers();
      },
      LAUNCH_PATIENCE_MS,
      `the time-skipping test server to listen on ${port}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { address: `127.0.0.1:${port}`, stop };
}

/** Starts a time-skipping server (one per test file: time is global to it, so tests in a file run serially). */
export async function startTimeSkipping(): Promise<TimeSkipping> {
  const setup = loadTemporalSetup({
    TEMPORAL_NAMESPACE: 'default',
    PAYRUN_PAYLOAD_KEYS: TEST_ONLY_PAYLOAD_KEYS,
  });
  const server = await launchTestServer();
  let env: TestWorkflowEnvironment;
  try {
    env = await createOnServer({
      server: { type: 'existing' },
      address: server.address,
      namespace: 'default',
      supportsTimeSkipping: true,
      client: { dataConverter: payrunDataConverter(setup.ring) },
    });
  } catch (err) {
    await server.stop();
    throw err;
  }
  // Workflows upsert payrun's search attributes; the test server refuses ones it does not know.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, type === 'Int' ? 3 : 2]),
    ),
  });
  const reader = new Client({
    connection: env.connection,
    namespace: 'default',
    dataConverter: payrunDataConverter(setup.ring),
  });
  const stopWorkers = new Set<() => Promise<void>>();
  const teardown = async () => {
    // A test that timed out leaves its worker running: stopped here, or the connection cannot close.
    await Promise.all([...stopWorkers].map((stop) => stop()));
    await env.teardown();
    await server.stop();
  };
  return { env, client: env.client, reader, setup, stopWorkers, teardown };
}

/**
 * The same shape on the shared dev server (the temporal project's), in real time: `env.sleep` waits.
 * For a stub test that needs no skipped time and that the Java test server wedges under load (a workflow
 * task left STARTED with no timeout: temporalio/sdk-java#2606, #3088).
 */
export async function onDevServer(): Promise<TimeSkipping> {
  const setup = loadTemporalSetup({
    TEMPORAL_NAMESPACE: 'default',
    PAYRUN_PAYLOAD_KEYS: TEST_ONLY_PAYLOAD_KEYS,
  });
  const env = await createOnServer({
    server: { type: 'existing' },
    address: temporalAddress(),
    namespace: 'default',
    supportsTimeSkipping: false,
    client: { dataConverter: payrunDataConverter(setup.ring) },
  });
  const stopWorkers = new Set<() => Promise<void>>();
  const teardown = async () => {
    await Promise.all([...stopWorkers].map((stop) => stop()));
    await env.teardown();
  };
  return { env, client: env.client, reader: env.client, setup, stopWorkers, teardown };
}

/**
 * The bundle of workflows/ as payrun's worker builds it; PAYRUN_TIME_SKIPPING_WORKFLOWS names another
 * copy's workflows/index.ts instead, to check that a test fails when its branch is broken on purpose, or
 * to run the tests against a clean export of a commit while the working tree is being edited.
 */
let otherBundle: Promise<WorkflowBundleWithSourceMap> | undefined;
export function bundle(): Promise<WorkflowBundleWithSourceMap> {
  const workflowsPath = process.env.PAYRUN_TIME_SKIPPING_WORKFLOWS;
  if (!workflowsPath) return workflowBundle();
  otherBundle ??= bundleWorkflowCode({ workflowsPath, logger: quietLogger, ...BUNDLE_OPTIONS });
  return otherBundle;
}

/** The stubs wrapped so each call is recorded, in order, in `calls`. */
export function recordCalls(stubs: StubActivities): { recorded: StubActivities; calls: StubCall[] } {
  const calls: StubCall[] = [];
  const recorded = Object.fromEntries(
    Object.entries(stubs).map(([name, fn]) => [
      name,
      async (input: unknown) => {
        calls.push({ name: name as keyof PayrunActivities, input });
        return (fn as (i: unknown) => unknown)(input);
      },
    ]),
  );
  return { recorded, calls };
}

/**
 * Runs `body` while a payrun worker (the real bundle, the encrypting converter, the metrics sink) serves
 * a fresh task queue with `stubs` as its activities; every stub call is recorded in `calls`. An activity a
 * workflow calls and the test did not stub fails loudly, naming it.
 */
export async function withStubWorker<T>(
  ts: TimeSkipping,
  stubs: StubActivities,
  body: (ctx: { taskQueue: string; calls: StubCall[] }) => Promise<T>,
): Promise<T> {
  const taskQueue = `ts-${randomUUID()}`;
  const { recorded, calls } = recordCalls(stubs);
  const worker = await createPayrunWorker({
    connection: ts.env.nativeConnection,
    setup: ts.setup,
    taskQueue,
    activities: recorded,
    workflowBundle: await bundle(),
  });
  const running = worker.run();
  const stop = async () => {
    ts.stopWorkers.delete(stop);
    worker.shutdown();
    await running;
  };
  ts.stopWorkers.add(stop);
  try {
    return await Promise.race([
      body({ taskQueue, calls }),
      running.then(() => {
        throw new Error('the stub worker stopped before the test ended');
      }),
    ]);
  } finally {
    await stop();
  }
}

/** The calls one stub activity took, in order. */
export const callsOf = (calls: StubCall[], name: keyof PayrunActivities) =>
  calls.filter((c) => c.name === name);

/**
 * Skips workflow time in steps of `stepMs` until `done` holds (a real-time limit of a minute). Between
 * steps time stands still (unless a test awaits `result()`), so nothing happens behind the test's back.
 */
export async function skipUntil(
  ts: TimeSkipping,
  done: () => Promise<boolean>,
  what: string,
  stepMs = 10_000,
): Promise<void> {
  await waitFor(
    async () => {
      if (await done()) return true;
      await ts.env.sleep(stepMs);
      return false;
    },
    60_000,
    what,
  );
}
