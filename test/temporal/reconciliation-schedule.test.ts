import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicKey } from 'node:crypto';
import { reconcileDemoDay } from '../../src/cli/reconcile';
import { PolicySource } from '../../src/policy/file';
import type { DayReport } from '../../src/reconcile/report';
import { addDays, moscowDay } from '../../src/reconcile/days';
import { ensureReconciliationSchedule } from '../../src/reconcile/schedule';
import { reconcileStoreFor } from '../../src/reconcile/store/open';
import { buildActivities } from '../../src/worker/activities';
import type { ReconcileDueResult } from '../../workflows/reconciliation/contract';
import { outcome, payoutRequest, startPayout } from '../harness/payouts';
import { DEPOSIT_ACCOUNT, QUICK_WAIT } from '../harness/reconciliation';
import { startStack, TEST_PAYER, type Stack } from '../harness/stack';
import { startTestWorker, type TestWorker } from '../harness/temporal';
import { waitFor } from '../harness/wait';

// The schedule reconciles the previous Moscow day, and every day a worker outage left behind.
describe('the reconciliation schedule', () => {
  let stack: Stack;
  let worker: TestWorker | undefined;
  let dataDir: string;
  const scheduleId = `reconcile-test-${randomUUID()}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'payrun-reconcile-schedule-'));
    process.env.PAYRUN_DATA_DIR = dataDir;
    stack = await startStack({ inProcessWorker: false });
  });
  afterAll(async () => {
    await stack?.client.schedule
      .getHandle(scheduleId)
      .delete()
      .catch(() => undefined);
    await worker?.stop();
    await stack?.stop();
  });

  const startWorker = () =>
    startTestWorker({
      taskQueue: stack.taskQueue,
      activities: buildActivities({
        bank: stack.bank,
        payer: TEST_PAYER,
        client: stack.client,
        taskQueue: stack.taskQueue,
        bankPublicKey: createPublicKey(stack.sandbox.bankPublicKeyPem),
        policy: new PolicySource({ PAYRUN_POLICY_FILE: stack.people.file }),
      }),
    });

  /** Triggers the schedule and returns the due workflow it started (waiting for it to be started, not run). */
  const trigger = async (actionsBefore: number) => {
    const handle = stack.client.schedule.getHandle(scheduleId);
    await handle.trigger();
    let workflowId = '';
    await waitFor(
      async () => {
        const { info } = await handle.describe();
        const action = info.recentActions[actionsBefore]?.action;
        workflowId = action?.type === 'startWorkflow' ? action.workflow.workflowId : '';
        return workflowId !== '';
      },
      30_000,
      'the schedule started its workflow',
    );
    return stack.client.workflow.getHandle(workflowId);
  };

  it('runs the previous day, catching up two days missed while no worker ran', async () => {
    const today = moscowDay(Date.now());
    const firstDay = addDays(today, -3);
    await ensureReconciliationSchedule(stack.client, {
      taskQueue: stack.taskQueue,
      scheduleId,
      // No accounts named: the deposit account wallet/balance names.
      input: { firstDay, statementWait: QUICK_WAIT },
    });
    const described = await stack.client.schedule.getHandle(scheduleId).describe();
    expect(described.spec.timezone).toBe('Europe/Moscow');
    expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 6, end: 6, step: 1 }] });

    // The worker is down: the run the schedule starts waits for one.
    const run = await trigger(0);
    expect((await run.describe()).status.name).toBe('RUNNING');
    expect(await reconcileStoreFor(dataDir).readDayOutcome(DEPOSIT_ACCOUNT, firstDay)).toBeUndefined();

    worker = await startWorker();
    const result = (await run.result()) as ReconcileDueResult;
    expect(result.upTo).toBe(addDays(today, -1));
    expect(result.days.map((d) => [d.account, d.day, d.outcome, d.found])).toEqual([
      [DEPOSIT_ACCOUNT, addDays(today, -3), 'reconciled', 0],
      [DEPOSIT_ACCOUNT, addDays(today, -2), 'reconciled', 0],
      [DEPOSIT_ACCOUNT, addDays(today, -1), 'reconciled', 0],
    ]);

    // The next run finds nothing due: each day is reconciled once.
    const next = (await (await trigger(1)).result()) as ReconcileDueResult;
    expect(next.days).toEqual([]);
  });

  it('the demo day: paid payouts reconcile with zero differences, and the files are where it says', async () => {
    worker ??= await startWorker();
    const paid = await outcome(await startPayout(stack, payoutRequest({ amount: 123_400 })));
    expect(paid.state).toBe('succeeded');
    const demo = await reconcileDemoDay(stack.client, stack.taskQueue);
    expect(demo).toMatchObject({
      clean: true,
      result: { outcome: 'reconciled', found: 0, day: moscowDay(Date.now()) },
    });
    const files = demo.result.files!;
    expect(demo.lines.join('\n')).toContain(files.oneC);
    for (const file of [files.csv, files.json, files.oneC]) expect(existsSync(file)).toBe(true);
    const report = JSON.parse(readFileSync(files.json, 'utf8')) as DayReport;
    expect(report.matched.map((m) => m.reference)).toEqual([paid.reference]);
  });
});
