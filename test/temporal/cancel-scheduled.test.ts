import type { BatchPaths } from '../../src/batch/services/config';
import { freePort } from '../../src/devserver/ports';
import { moscowDate } from '../../src/domain';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  freshInn,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { underLoad } from '../harness/budget';
import { runCli } from '../harness/cli-process';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { superviseWorkerProcess } from '../harness/worker-process';

/**
 * A date's sleeping rows cancelled in one command (issue 42, docs/batches.md "Scheduled rows"), on the real
 * stack: the rows of that date end cancelled with no bank session, their reservations leave the recipient's
 * ledger, the other date's row sleeps on, and it survives its worker being replaced by a `payrun worker`
 * process. Rows dated tomorrow and the day after sleep for hours of real time, which the test never waits.
 */
const DAY = 86_400_000;
const dotted = (iso: string) => iso.split('-').reverse().join('.');

describe('payrun batch cancel-scheduled', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack();
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  it('cancels one date’s sleeping rows, releases their reservations and leaves the other date asleep', async () => {
    const prefix = uniquePrefix();
    const inn = freshInn(Number.parseInt(prefix.slice(1, 7), 16) % 100_000_000);
    const first = moscowDate(Date.now() + DAY);
    const second = moscowDate(Date.now() + 2 * DAY);
    const ref = (s: string) => `${prefix}-${s}`;
    const rows = [
      { reference: ref('now'), inn },
      { reference: ref('a1'), inn, payOn: dotted(first) },
      { reference: ref('b1'), inn, payOn: second },
      { reference: ref('a2'), inn, payOn: first },
    ];
    const r = await dropAndSubmit(stack, paths, `${prefix}.csv`, batchCsv(rows, { win1251: true }));
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(handle, (p) => p.finished === 1 && p.scheduled === 3);
    const env = stack.cliEnv('preparer');
    const show = async () => (await runCli(['recipient', 'show', inn], env)).stdout;
    expect(await show()).toMatch(/выплачено 1 500,00 ₽, в резерве 4 500,00 ₽/);

    // A date that is not one is a usage error naming the option; a date with no rows says so.
    const bad = await runCli(['batch', 'cancel-scheduled', r.batchId, '--date', '31.11.2026'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ошибка: параметр --date: не дата; укажите ДД\.ММ\.ГГГГ или ГГГГ-ММ-ДД$/m);
    const none = await runCli(
      ['batch', 'cancel-scheduled', r.batchId, '--date', moscowDate(Date.now() + 3 * DAY), '--by', 'tester'],
      env,
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/нет строк с датой выплаты/);

    const cancel = await runCli(
      [
        'batch',
        'cancel-scheduled',
        r.batchId,
        '--date',
        dotted(first),
        '--by',
        'tester',
        '--reason',
        'акт не подписан',
      ],
      env,
    );
    expect({ code: cancel.code, stderr: cancel.stderr }).toEqual({ code: 0, stderr: '' });
    expect(cancel.stdout.split('\n')[0]).toBe(
      `${dotted(first)}: отменено 2 строки из 2; их резерв под лимитом дохода снят`,
    );
    expect(cancel.stdout).toContain(`${ref('a1')}: отменена`);
    expect(cancel.stdout).toContain(`${ref('a2')}: отменена`);
    for (const s of ['a1', 'a2']) {
      const status = await stack.client.workflow.getHandle(payoutWorkflowId(ref(s))).query(payoutStatusQuery);
      expect(status.state).toBe('cancelled');
    }
    await waitForProgress(handle, (p) => p.finished === 3 && p.scheduled === 1);
    expect(await show()).toMatch(/выплачено 1 500,00 ₽, в резерве 1 500,00 ₽/);
    // The bank never saw the cancelled rows; the row paid now was paid once.
    const sessions = new Set(stack.sandbox.ledger().map((e) => e.recipient_reference));
    expect([ref('a1'), ref('a2')].filter((x) => sessions.has(x))).toEqual([]);
    expect([...ledgerPayouts(stack, [ref('now'), ref('b1')]).values()]).toEqual([1, 0]);

    // Again: nothing of that date sleeps now, and each row says what it is.
    const again = await runCli(
      ['batch', 'cancel-scheduled', r.batchId, '--date', first, '--by', 'tester'],
      env,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('отменено 0 строк из 2');
    expect(again.stdout).toContain(`${ref('a1')}: не отменена, уже не ждёт даты (отменено)`);

    // The sleeping row outlives its worker: the in-process one stops, a `payrun worker` process takes over.
    await stack.worker!.stop();
    const port = await freePort();
    const worker = superviseWorkerProcess(
      {
        ...stack.workerEnv,
        PAYRUN_DATA_DIR: paths.dataDir,
        PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
        PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
      },
      'cancel-scheduled',
    );
    /** The worker's payrun_payouts_scheduled, from its /metrics (Temporal visibility's count of sleeping rows). */
    const scheduledGauge = async () => {
      try {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return /^payrun_payouts_scheduled (\d+)$/m.exec(text)?.[1];
      } catch {
        return undefined; // not listening yet
      }
    };
    try {
      const b1 = stack.client.workflow.getHandle(payoutWorkflowId(ref('b1')));
      await waitFor(
        async () => (await b1.query(payoutStatusQuery)).state === 'scheduled',
        underLoad(120_000),
        'the sleeping row answering from the new worker',
      );
      expect(await show()).toMatch(/в резерве 1 500,00 ₽/);
      // Visible as scheduled where operators look: Temporal's search (the UI's query) and the gauge.
      const asleep = `PayrunState = "scheduled" AND ExecutionStatus = "Running" AND TaskQueue = "${stack.taskQueue}"`;
      await waitFor(
        async () => (await stack.client.workflow.count(asleep)).count === 1,
        underLoad(30_000),
        'b1 searchable as scheduled',
      );
      await waitFor(async () => (await scheduledGauge()) === '1', underLoad(60_000), 'the gauge to count b1');
      const last = await runCli(
        ['batch', 'cancel-scheduled', r.batchId, '--date', dotted(second), '--by', 'tester'],
        env,
      );
      expect(last.stdout.split('\n')[0]).toBe(
        `${dotted(second)}: отменено 1 строка из 1; их резерв под лимитом дохода снят`,
      );
      await waitFor(
        async () => (await scheduledGauge()) === '0',
        underLoad(60_000),
        'the gauge to count none',
      );
      const result = await handle.result();
      expect(result.counts).toEqual({ succeeded: 1, cancelled: 3 });
      expect(await show()).toMatch(/выплачено 1 500,00 ₽, в резерве 0,00 ₽/);
      expect([
        ...ledgerPayouts(
          stack,
          rows.map((x) => x.reference),
        ).values(),
      ]).toEqual([1, 0, 0, 0]);
      expect(worker.restarts).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
