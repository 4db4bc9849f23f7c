import { underLoad } from '../harness/budget';
import type { BatchPaths } from '../../src/batch/services/config';
import { freePort } from '../../src/devserver/ports';
import {
  approveBatchUpdate,
  batchProgressQuery,
  pauseBatchUpdate,
  rejectBatchUpdate,
  resumeBatchUpdate,
} from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { readyAt, superviseWorkerProcess } from '../harness/worker-process';

/**
 * `payrun batch status` (the progress query) in tight loops while Updates are accepted (pause, resume, a
 * reject of one batch, the approval of another), for a whole batch, against a `payrun worker` process as
 * production runs one: its /ready stays 200 throughout, it never exits, the batch finishes and the
 * sandbox's ledger shows every row paid once and the rejected batch paid nothing.
 */
describe('status reads while Updates are accepted', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack({ policy: {}, inProcessWorker: false });
  });
  afterAll(async () => stack?.stop());

  it(
    'never stops the worker polling',
    async () => {
      const port = await freePort();
      const worker = superviseWorkerProcess(
        {
          ...stack.workerEnv,
          PAYRUN_DATA_DIR: paths.dataDir,
          PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
          PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
        },
        'status-under-updates',
      );
      let stop = false;
      const notReady: unknown[] = [];
      let readiness: Promise<void> | undefined;
      try {
        await waitFor(
          async () => (await readyAt(port)).status === 200,
          underLoad(120_000),
          'the worker ready',
        );
        readiness = (async () => {
          while (!stop) {
            const r = await readyAt(port);
            if (r.status !== 200) notReady.push({ at: new Date().toISOString(), ...r });
            await new Promise((res) => setTimeout(res, 250));
          }
        })();

        const submit = async (rows: number) => {
          const references = Array.from({ length: rows }, (_, i) => `${uniquePrefix()}-${i}`);
          const r = await dropAndSubmit(
            stack,
            paths,
            `${references[0]}.csv`,
            batchCsv(references.map((reference) => ({ reference }))),
            { batchOptions: { maxInFlight: 3 } },
          );
          const handle = batchHandle(stack, r.batchId);
          await waitForProgress(handle, (p) => p.phase === 'awaiting_approval', underLoad(120_000));
          return { batchId: r.batchId, references, handle };
        };
        const paid = await submit(20);
        const rejected = await submit(2);

        let queries = 0;
        const queryLoop = async (handle: typeof paid.handle) => {
          while (!stop) {
            await handle.query(batchProgressQuery).catch(() => undefined);
            queries++;
          }
        };
        const loops = [paid, paid, rejected, rejected].map((b) => queryLoop(b.handle));
        const ops = { by: 'ops' };
        const pauseResume = async (times: number) => {
          for (let i = 0; i < times && !stop; i++) {
            await paid.handle.executeUpdate(pauseBatchUpdate, { args: [ops] });
            await paid.handle.executeUpdate(resumeBatchUpdate, { args: [ops] });
          }
        };
        await pauseResume(5);
        const no = await batchDecision(stack, paths.dataDir, rejected.batchId, 'approver', 'reject', {
          reason: 'not ours',
        });
        expect(await rejected.handle.executeUpdate(rejectBatchUpdate, { args: [no] })).toContain(
          'rejected by',
        );
        const yes = await batchDecision(stack, paths.dataDir, paid.batchId, 'approver');
        expect(await paid.handle.executeUpdate(approveBatchUpdate, { args: [yes] })).toContain(
          'paying may start',
        );
        const paying = pauseResume(10);

        const result = await paid.handle.result();
        const rejectedResult = await rejected.handle.result();
        stop = true;
        await Promise.all([...loops, paying, readiness]);

        process.stderr.write(`[status-under-updates] ${queries} progress queries answered or refused\n`);
        expect(notReady).toEqual([]);
        expect(worker.exits).toEqual([]);
        expect(result.counts).toEqual({ succeeded: 20 });
        expect([...ledgerPayouts(stack, paid.references).values()]).toEqual(Array(20).fill(1));
        expect(rejectedResult.counts.succeeded ?? 0).toBe(0);
        expect([...ledgerPayouts(stack, rejected.references).values()]).toEqual([0, 0]);
      } finally {
        stop = true;
        await readiness;
        await worker.stop();
      }
    },
    underLoad(400_000),
  );
});
