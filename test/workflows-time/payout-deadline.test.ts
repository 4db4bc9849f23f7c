import { payoutRequest } from '../harness/payouts';
import { callsOf, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import { approverPolicy, finalStatus, payoutStubs, startPayout } from './payout-stubs';

// The bank's 4-hour confirm window (docs/payouts.md, steps 5 and 6), in workflow time on the
// time-skipping server: the payout never confirms after it, and ends `expired` with nothing paid.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

test('an approval that never comes: at 3 h 45 min the session is cancelled, the payout expired, never confirmed', async () => {
  const bank = new FakeBank();
  const { authorization } = approverPolicy(ts);
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank, { authorization }), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    const status = await finalStatus(handle);

    expect(status.state).toBe('expired');
    expect(status.failure?.code).toBe('approval_timeout');
    const session = bank.sessionOf(request.reference)!;
    expect(session.stage).toBe('cancelled');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
    expect(callsOf(calls, 'cancelSession').map((c) => c.input)).toEqual([
      expect.objectContaining({ sessionId: session.id }),
    ]);
    // The deadline counts from before the create: the window minus the 15-minute margin, not a minute more.
    const waited = Date.parse(status.timestamps.finished!) - Date.parse(status.timestamps.started!);
    expect(waited).toBeGreaterThanOrEqual(3 * HOUR + 45 * MINUTE);
    expect(waited).toBeLessThan(3 * HOUR + 46 * MINUTE);
  });
});

test('ready_to_confirm only after the bank’s window: the one confirm is refused (confirm_timeout), the payout expired', async () => {
  const bank = new FakeBank();
  const request = payoutRequest({ selfEmployed: false });
  let createdAt = 0;
  bank.onRead = async (s) => {
    // The bank says nothing for five hours, then that it is ready; its own clock refuses the confirm.
    if (s.stage === 'processing' && (await ts.env.currentTimeMs()) - createdAt >= 5 * HOUR) s.stage = 'ready';
  };
  const stubs = payoutStubs(bank);
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    createdAt = await ts.env.currentTimeMs();
    bank.refuseConfirm = 'confirm_timeout';
    const handle = await startPayout(ts, taskQueue, { request });
    const status = await finalStatus(handle);

    expect(status.state).toBe('expired');
    expect(status.failure?.code).toBe('confirm_timeout');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
    expect(status.timestamps.confirmed).toBeUndefined();
    expect(bank.sessionOf(request.reference)!.stage).toBe('ready');
  });
});
