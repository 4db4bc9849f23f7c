import { payoutRequest } from '../harness/payouts';
import { callsOf, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import { bankEventSignal } from './imports';
import { finalStatus, payoutStubs, startPayout, untilState } from './payout-stubs';

// The payout's two clocks the other files leave out (docs/payouts.md, steps 4 and 5): the poll chain
// that finds what lost webhooks would have said (a minute, then doubling), and the confirm retried
// every 10 s while the session is still pending, until the bank's 4-hour window closes.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

test('every webhook lost: session/status read at 1, 3, 7, 15 and 31 minutes, confirmed once when ready, paid', async () => {
  const bank = new FakeBank();
  const request = payoutRequest({ selfEmployed: false });
  const readAt: number[] = [];
  let startedAt = 0;
  bank.onRead = async (s) => {
    const since = (await ts.env.currentTimeMs()) - startedAt;
    readAt.push(Math.round(since / MINUTE));
    if (s.stage === 'processing' && since >= 20 * MINUTE) s.stage = 'ready';
    else if (s.stage === 'in_progress') s.stage = 'succeeded';
  };
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    startedAt = await ts.env.currentTimeMs();
    const handle = await startPayout(ts, taskQueue, { request });
    const status = await finalStatus(handle);

    expect(status.state).toBe('succeeded');
    expect(readAt.slice(0, 5)).toEqual([1, 3, 7, 15, 31]);
    expect(status.notes.join('\n')).toContain('recovered by polling');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
  });
});

test('ready at 3 h 44 min, the confirm keeps failing: retried every 10 s until 4 h, then the session is cancelled, expired', async () => {
  const bank = new FakeBank();
  bank.onRead = () => undefined; // the bank moves only when the test says
  bank.refuseConfirm = 'internal_error';
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'awaiting_ready_to_confirm');
    const { startTime } = await handle.describe();
    await ts.env.sleep(startTime.getTime() + 3 * HOUR + 44 * MINUTE - (await ts.env.currentTimeMs()));
    const session = bank.sessionOf(request.reference)!;
    session.stage = 'ready';
    await handle.signal(bankEventSignal, {
      id: `evt-${session.id}`,
      type: 'ready_to_confirm',
      sessionId: session.id,
      receivedAt: new Date().toISOString(),
    });
    const status = await finalStatus(handle);

    expect(status.state).toBe('expired');
    expect(status.failure?.code).toBe('internal_error');
    expect(session.stage).toBe('cancelled');
    expect(status.timestamps.confirmed).toBeUndefined();
    const waited = Date.parse(status.timestamps.finished!) - startTime.getTime();
    expect(waited).toBeGreaterThanOrEqual(4 * HOUR);
    expect(waited).toBeLessThan(4 * HOUR + 2 * MINUTE);
    // Sixteen minutes of a try every 10 s: about 96 confirms, each followed by a read, then one cancel.
    const confirms = callsOf(calls, 'confirmSession').length;
    expect(confirms).toBeGreaterThan(80);
    expect(confirms).toBeLessThan(110);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(1);
  });
});
