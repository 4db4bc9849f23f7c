import type { ChildProcess } from 'node:child_process';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';

// The README promises JSON logs. The Temporal SDK's core (Rust) logs on its own unless its logs are
// forwarded to the runtime's logger (src/worker/runtime.ts): then they reach pino like the rest.
describe("a worker's log", () => {
  let stack: Stack;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    stack = await startStack({ inProcessWorker: false });
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await stack?.stop();
  });

  it('is JSON from start to shutdown on both streams, the SDK core\u2019s lines included', async () => {
    const streams = { stdout: [] as string[], stderr: [] as string[] };
    // INFO: the core logs its worker's start ("Initializing worker") at that level.
    worker = spawnWorkerProcess({
      ...stack.workerEnv,
      LOG_LEVEL: 'info',
      TEMPORAL_LOG_LEVEL: 'INFO',
      PAYRUN_WORKER_METRICS_ADDRESS: 'off',
      PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
    });
    worker.stdout!.setEncoding('utf8').on('data', (chunk: string) => streams.stdout.push(chunk));
    worker.stderr!.setEncoding('utf8').on('data', (chunk: string) => streams.stderr.push(chunk));
    /** Every line of both streams; a line that is not JSON kept as { notJson, stream }. */
    const lines = () =>
      (['stdout', 'stderr'] as const).flatMap((stream) =>
        streams[stream]
          .join('')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((line): Record<string, unknown> => {
            try {
              return JSON.parse(line) as Record<string, unknown>;
            } catch {
              return { notJson: line, stream };
            }
          }),
      );
    await waitFor(
      async () => lines().some((l) => l.sdkComponent === 'core'),
      60_000,
      "a line from the SDK's core in the worker's log",
    );
    const exited = new Promise((r) => worker!.once('exit', r));
    worker.kill('SIGTERM');
    await exited;

    // Unforwarded, the core printed coloured text on stdout ("\u001b[32m INFO\u001b[0m … Initializing worker").
    expect(lines().filter((l) => 'notJson' in l)).toEqual([]);
    const core = lines().filter((l) => l.sdkComponent === 'core');
    expect(core).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'temporal-sdk', msg: 'Initializing worker' })]),
    );
  });
});
