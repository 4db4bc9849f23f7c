import type { WorkflowHandle } from '@temporalio/client';
import { payoutStatusQuery, type payoutWorkflow } from './imports';
import { payoutRequest } from '../harness/payouts';
import { callsOf, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import { finalStatus, payoutStubs, startPayout, untilState } from './payout-stubs';

// The bank silent for days: no webhook, and every session/status read finds nothing new. The payout
// keeps waiting without a confirm it may not send, reads session/status at most hourly (docs/payouts.md,
// step 4), its history grows by a bounded amount a day, and it ends as the bank finally says.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const historyLength = async (handle: WorkflowHandle) => (await handle.fetchHistory()).events!.length;

/** Skips a day of workflow time; what the payout read and how its history grew meanwhile. */
async function aDay(handle: WorkflowHandle<typeof payoutWorkflow>, reads: () => number) {
  const [before, eventsBefore] = [reads(), await historyLength(handle)];
  await ts.env.sleep(DAY);
  return { reads: reads() - before, events: (await historyLength(handle)) - eventsBefore };
}

test('silent before ready_to_confirm for three days: no confirm, hourly reads, bounded history; the bank’s failure ends it', async () => {
  const bank = new FakeBank();
  bank.onRead = () => undefined;
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'awaiting_ready_to_confirm');
    const reads = () => callsOf(calls, 'getSession').length;
    await aDay(handle, reads); // the reads back off from a minute to an hour on the first day
    for (const day of [await aDay(handle, reads), await aDay(handle, reads)]) {
      expect(day.reads).toBeGreaterThanOrEqual(23); // it keeps asking…
      expect(day.reads).toBeLessThanOrEqual(25); // …about hourly, no more
      expect(day.events).toBeLessThanOrEqual(25 * 8); // a timer, a task and a read per poll
    }
    expect((await handle.query(payoutStatusQuery)).state).toBe('awaiting_ready_to_confirm');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0);

    Object.assign(bank.sessionOf(request.reference)!, { stage: 'failed', errorCode: 'session_expired' });
    const status = await finalStatus(handle);
    expect(status.state).toBe('failed');
    expect(status.failure?.code).toBe('session_expired');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
  });
});

test('silent for three days after the confirm: confirmed exactly once, then paid when the bank finally says so', async () => {
  const bank = new FakeBank();
  bank.onRead = (s) => {
    if (s.stage === 'processing') s.stage = 'ready'; // then nothing: the confirmed payout stays in progress
  };
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'awaiting_result');
    const reads = () => callsOf(calls, 'getSession').length;
    await aDay(handle, reads);
    for (const day of [await aDay(handle, reads), await aDay(handle, reads)]) {
      expect(day.reads).toBeGreaterThanOrEqual(23);
      expect(day.reads).toBeLessThanOrEqual(25);
      expect(day.events).toBeLessThanOrEqual(25 * 8);
    }
    expect((await handle.query(payoutStatusQuery)).state).toBe('awaiting_result');

    bank.sessionOf(request.reference)!.stage = 'succeeded';
    const status = await finalStatus(handle);
    expect(status.state).toBe('succeeded');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
    expect(callsOf(calls, 'createPayoutSession').length + callsOf(calls, 'beforeCreating').length).toBe(1);
    expect(bank.sessions.size).toBe(1);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0);
  });
});
