import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import {
  callsOf,
  skipUntil,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { payoutWorkflowId, taxpayerCheckRequestSignal, taxpayerVerdictQuery } from './imports';

// The per-tax-number workflow's timers: npd/check at most once per 31 s, a fresh verdict reused without
// one, the status polled with backoff and given up after 6 hours, and the run closing after 10 idle minutes.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

/** The bank's npd check: each check's workflow time, and a status that is `pending` while `pending()`. */
function fakeNpd(pending: () => boolean = () => false) {
  const checkedAt: number[] = [];
  const stubs: StubActivities = {
    npdCheck: async () => {
      checkedAt.push(await ts.env.currentTimeMs());
      return { requestId: `npd-${checkedAt.length}` };
    },
    npdRequestStatus: async () =>
      pending()
        ? { status: 'pending' }
        : { status: 'completed', isProfessionalIncomeTaxpayer: true, isLinked: true },
  };
  return { stubs, checkedAt };
}

const ask = (maxAgeMs: number) => ({ replyTo: payoutWorkflowId(`t-${randomUUID()}`), maxAgeMs });

function startTaxpayer(taskQueue: string, first: { replyTo: string; maxAgeMs: number }) {
  return ts.client.workflow.signalWithStart('taxpayerWorkflow', {
    taskQueue,
    workflowId: `taxpayer-${randomUUID()}`,
    args: [{ taxReference: '500100732259' }],
    signal: taxpayerCheckRequestSignal,
    signalArgs: [first],
  });
}

/**
 * The workflow's own clock at each npd/check it asked for: the start of the workflow task that scheduled
 * it (what workflowNow() read there). The schedule event itself trails it by the task's run time.
 */
async function checksAsked(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  const ms = (t: { seconds?: unknown; nanos?: number | null }) =>
    Number(t.seconds) * 1_000 + Math.floor((t.nanos ?? 0) / 1e6);
  let taskStarted = 0;
  const asked: number[] = [];
  for (const e of events!) {
    if (e.workflowTaskStartedEventAttributes) taskStarted = ms(e.eventTime!);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'npdCheck') asked.push(taskStarted);
  }
  return asked;
}

/** Who the workflow answered, in order (a payout that has ended is still answered; the signal fails). */
async function answered(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return events!.flatMap((e) => {
    const to = e.signalExternalWorkflowExecutionInitiatedEventAttributes?.workflowExecution?.workflowId;
    return to ? [to] : [];
  });
}

test('spacing and reuse: a fresh verdict answers without a check, a stale ask waits 31 s after the last; idle 10 min closes', async () => {
  const npd = fakeNpd();
  await withStubWorker(ts, npd.stubs, async ({ taskQueue }) => {
    const [first, fresh, stale] = [ask(HOUR), ask(HOUR), ask(0)];
    const handle = await startTaxpayer(taskQueue, first);
    await skipUntil(
      ts,
      async () => (await handle.query(taxpayerVerdictQuery)) !== undefined,
      'the first verdict',
      SECOND,
    );
    await ts.env.sleep(5 * SECOND);
    await handle.signal(taxpayerCheckRequestSignal, fresh);
    await skipUntil(
      ts,
      async () => (await answered(handle)).includes(fresh.replyTo),
      'the fresh answer',
      SECOND,
    );
    expect(npd.checkedAt).toHaveLength(1);

    await handle.signal(taxpayerCheckRequestSignal, stale);
    await handle.result(); // the run ends after 10 idle minutes

    expect(npd.checkedAt).toHaveLength(2);
    const asked = await checksAsked(handle);
    const spacing = asked[1]! - asked[0]!;
    expect(spacing).toBeGreaterThanOrEqual(31 * SECOND); // the bank's 30 s and a second more
    expect(spacing).toBeLessThan(40 * SECOND);
    expect(await answered(handle)).toEqual([first.replyTo, fresh.replyTo, stale.replyTo]);
    const { closeTime } = await handle.describe();
    const idle = closeTime!.getTime() - asked[1]!;
    expect(idle).toBeGreaterThanOrEqual(10 * MINUTE);
    expect(idle).toBeLessThan(11 * MINUTE);
  });
});

test('a check the bank leaves pending: polled with backoff, given up after 6 hours as npd_check_stuck_pending', async () => {
  const npd = fakeNpd(() => true);
  await withStubWorker(ts, npd.stubs, async ({ taskQueue, calls }) => {
    const asked = ask(HOUR);
    const handle = await startTaxpayer(taskQueue, asked);
    await handle.result();

    const verdict = await handle.query(taxpayerVerdictQuery);
    expect(verdict).toMatchObject({ isProfessionalIncomeTaxpayer: false, error: 'npd_check_stuck_pending' });
    const gaveUpAfter = Date.parse(verdict!.checkedAt) - npd.checkedAt[0]!;
    expect(gaveUpAfter).toBeGreaterThan(6 * HOUR);
    expect(gaveUpAfter).toBeLessThan(6 * HOUR + 2 * MINUTE);
    // Backoff to a minute: about one read a minute, not one every half second.
    const reads = callsOf(calls, 'npdRequestStatus').length;
    expect(reads).toBeGreaterThan(360);
    expect(reads).toBeLessThan(380);
    expect(await answered(handle)).toEqual([asked.replyTo]);
  });
});
