import { underLoad } from '../harness/budget';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { msToTs } from '@temporalio/common/lib/time';
import { freePort } from '../../src/devserver/ports';
import { startStack, type Stack } from '../harness/stack';
import { readyAt, superviseWorkerProcess, workerLogPath } from '../harness/worker-process';
import { waitFor } from '../harness/wait';

/** The worker's log lines (pino JSON), each with its time. */
function logLines(pid: number | undefined): { time: number; level: number; msg: string }[] {
  return readFileSync(workerLogPath(pid), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { time: number; level: number; msg: string });
}

/**
 * A worker whose polls the server refuses for good stops being a worker: the SDK fails its pollers and
 * shuts it down. Deterministically so by deleting the namespace it polls: the server answers every poll
 * NotFound (Core treats NotFound as final, never retried). The process must then exit 1 within 10 s of
 * that fatal error, so that its supervisor starts a new one; before, it stayed up, not polling.
 */
describe('a worker that cannot work', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ inProcessWorker: false });
  });
  afterAll(async () => stack?.stop());

  it(
    'exits within 10 s of the SDK stopping it, and its supervisor starts it again',
    async () => {
      const namespace = `exit-${randomUUID().slice(0, 8)}`;
      await stack.client.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
      const port = await freePort();
      const supervised = superviseWorkerProcess(
        {
          ...stack.workerEnv,
          TEMPORAL_NAMESPACE: namespace,
          PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
          PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
          LOG_LEVEL: 'info',
        },
        'worker-exits',
      );
      try {
        // The namespace is new: the server may take a moment to serve it to the worker's polls.
        await waitFor(
          async () => (await readyAt(port)).status === 200,
          underLoad(120_000),
          'the worker ready',
        );
        const first = supervised.pid;
        const deletedAt = Date.now();
        await stack.client.connection.operatorService.deleteNamespace({ namespace });
        await waitFor(
          async () => supervised.exits.length >= 1,
          underLoad(180_000),
          'the worker process to exit',
        );
        const exit = supervised.exits[0]!;
        expect(exit).toMatchObject({ pid: first, code: 1, signal: null });

        const lines = logLines(first);
        // The first error after the deletion is the SDK's: its poll refused, the worker failing.
        const fatal = lines.find((l) => l.level >= 50 && l.time >= deletedAt);
        const noticed = lines.find((l) => l.msg.startsWith('the Temporal worker stopped by itself'));
        expect(fatal).toBeDefined();
        expect(noticed).toBeDefined();
        const figures = {
          deletionToExitMs: exit.at - deletedAt,
          deletionToFatalMs: fatal!.time - deletedAt,
          fatalToExitMs: exit.at - fatal!.time,
          noticedToExitMs: exit.at - noticed!.time,
        };
        process.stderr.write(`[worker-exits] ${JSON.stringify({ ...figures, fatal: fatal!.msg })}\n`);
        expect(figures.fatalToExitMs).toBeLessThan(underLoad(10_000));
        // The worker asks the server who polls every 5 s: a namespace it says is gone ends the process then,
        // without waiting a minute or two for the SDK's outstanding long polls to come back refused.
        expect(noticed!.msg).toBeDefined();
        expect(figures.deletionToExitMs).toBeLessThan(underLoad(60_000));
        // The supervisor started another process (it cannot poll a deleted namespace either, and exits too).
        await waitFor(async () => supervised.pid !== first, underLoad(10_000), 'a new worker process');
      } catch (err) {
        const tail = readFileSync(workerLogPath(supervised.pid), 'utf8').split('\n').slice(-15).join('\n');
        throw new Error(`${(err as Error).message}\n--- the worker's last lines:\n${tail}`);
      } finally {
        await supervised.stop();
      }
    },
    underLoad(300_000),
  );
});
