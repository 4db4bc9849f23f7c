import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DayOutcome } from '../../src/reconcile/store';
import {
  callsOf,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { reconciliationWorkflowId } from './imports';

// Reconciliation's waits in workflow time (docs/reconciliation.md): a day's statement waited for while
// the bank says it is not ready (from a minute, doubling to 15, for 6 hours), recorded as unavailable
// when it never comes, and the morning run reconciling up to yesterday in Moscow, day by day.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ACCOUNT = '40702810000000000001';

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

/** The bank's statement, ready `after` ms of workflow time past the first ask (never: Infinity). */
function fakeStatements(after: number) {
  let first: number | undefined;
  const outcome = (step: { account: string; day: string }, more: Partial<DayOutcome>): DayOutcome => ({
    ...step,
    outcome: 'reconciled',
    open: 0,
    found: 0,
    settled: 0,
    at: new Date().toISOString(),
    ...more,
  });
  const stubs: StubActivities = {
    fetchStatement: async () => {
      const now = await ts.env.currentTimeMs();
      first ??= now;
      if (now - first < after)
        throw ApplicationFailure.retryable('the statement is not ready yet', 'statement_not_ready');
      return { lines: 3 };
    },
    listDayPayouts: async () => ({ payouts: 3 }),
    matchReconciliationDay: async (step) => outcome(step, { found: 3 }),
    recordStatementUnavailable: async ({ error, ...step }) =>
      outcome(step, { outcome: 'statement_unavailable', error }),
  };
  return stubs;
}

const startDay = (taskQueue: string, day: string) =>
  ts.client.workflow.start('reconciliationDayWorkflow', {
    taskQueue,
    workflowId: reconciliationWorkflowId(ACCOUNT, `${day}-${randomUUID()}`),
    args: [{ account: ACCOUNT, day }],
  });

const lasted = async (handle: WorkflowHandle) => {
  const { startTime, closeTime } = await handle.describe();
  return closeTime!.getTime() - startTime.getTime();
};

test('the statement is ready after two hours: asked at 1, 3, 7, 15 minutes and then every 15, reconciled', async () => {
  await withStubWorker(ts, fakeStatements(2 * HOUR), async ({ taskQueue, calls }) => {
    const handle = await startDay(taskQueue, '2026-11-20');
    const result = (await handle.result()) as DayOutcome;

    expect(result).toMatchObject({ outcome: 'reconciled', found: 3 });
    // 0, 1, 3, 7, 15, 30, … 120 minutes: twelve asks, not one a second and not one an hour.
    expect(callsOf(calls, 'fetchStatement')).toHaveLength(12);
    expect(callsOf(calls, 'recordStatementUnavailable')).toHaveLength(0);
    expect(await lasted(handle)).toBeLessThan(2 * HOUR + 15 * MINUTE);
  });
});

test('the statement never comes: after about 6 hours the day is recorded unavailable with the bank’s last word', async () => {
  await withStubWorker(ts, fakeStatements(Infinity), async ({ taskQueue, calls }) => {
    const handle = await startDay(taskQueue, '2026-11-21');
    const result = (await handle.result()) as DayOutcome;

    expect(result.outcome).toBe('statement_unavailable');
    expect(result.error).toContain('the statement is not ready yet');
    expect(callsOf(calls, 'listDayPayouts')).toHaveLength(0);
    const took = await lasted(handle);
    expect(took).toBeGreaterThan(5 * HOUR);
    expect(took).toBeLessThan(6 * HOUR + 15 * MINUTE);
  });
});

test('the morning run just after midnight in Moscow: every due day up to yesterday there, oldest first, one child each', async () => {
  // Skip to 21:30 UTC, which is 00:30 the next day in Moscow: "yesterday" there is today's UTC date.
  const now = await ts.env.currentTimeMs();
  const target = new Date(now);
  target.setUTCHours(21, 30, 0, 0);
  if (target.getTime() <= now) target.setUTCDate(target.getUTCDate() + 1);
  await ts.env.sleep(target.getTime() - now);
  const utcToday = new Date(await ts.env.currentTimeMs()).toISOString().slice(0, 10);

  const stubs: StubActivities = {
    ...fakeStatements(0),
    reconciliationAccounts: async () => [ACCOUNT],
    dueReconciliationDays: async ({ upTo }) => ['2026-11-19', upTo],
  };
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const handle = await ts.client.workflow.start('reconciliationDueWorkflow', {
      taskQueue,
      workflowId: `reconcile-due-${randomUUID()}`,
      args: [{ firstDay: '2026-11-01' }],
    });
    const result = (await handle.result()) as { upTo: string; days: DayOutcome[] };

    expect(result.upTo).toBe(utcToday);
    expect(callsOf(calls, 'dueReconciliationDays').map((c) => c.input)).toEqual([
      { account: ACCOUNT, firstDay: '2026-11-01', upTo: utcToday, maxDays: 10 },
    ]);
    expect(result.days.map((d) => d.day)).toEqual(['2026-11-19', utcToday]);
    const child = ts.client.workflow.getHandle(reconciliationWorkflowId(ACCOUNT, utcToday));
    expect((await child.describe()).status.name).toBe('COMPLETED');
  });
});
