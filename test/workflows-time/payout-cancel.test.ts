import { cancelPayoutUpdate, type PayoutState } from './imports';
import { payoutRequest } from '../harness/payouts';
import { callsOf, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import { approverPolicy, finalStatus, payoutStubs, startPayout, untilState } from './payout-stubs';

// An operator's cancel at each step of a payout, as docs/payouts.md (step 5, "Operator commands")
// promises: before the session exists it just stops; once the session exists it waits for the bank
// to allow a cancel (ready_to_confirm) and cancels the session; after the confirm it is too late.

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const CANCEL = { by: 'oncall', reason: 'wrong amount' };
const cancelIn = async (handle: Awaited<ReturnType<typeof startPayout>>, state: PayoutState) => {
  await untilState(ts, handle, state);
  return handle.executeUpdate(cancelPayoutUpdate, { args: [CANCEL] });
};

test('before the session: waiting for the taxpayer verdict, a cancel stops it and the bank never hears of it', async () => {
  const bank = new FakeBank();
  const request = payoutRequest({ selfEmployed: true });
  // The look-up asked the taxpayer workflow; its verdict never comes.
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    expect(await cancelIn(handle, 'checking_taxpayer')).toMatch(/^cancel requested/);
    const status = await finalStatus(handle);

    expect(status.state).toBe('cancelled');
    expect(status.failure?.code).toBe('cancelled_by_operator');
    expect(status.bank.sessionId).toBeUndefined();
    expect(bank.sessions.size).toBe(0);
    for (const call of ['createPayoutSession', 'confirmSession', 'cancelSession'] as const)
      expect(callsOf(calls, call)).toHaveLength(0);
  });
});

test('after the create, before ready_to_confirm: the cancel waits for the bank, then cancels the session', async () => {
  const bank = new FakeBank();
  bank.onRead = () => undefined; // the bank says nothing until the test lets it
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    expect(await cancelIn(handle, 'awaiting_ready_to_confirm')).toMatch(/^cancel requested/);
    const session = bank.sessionOf(request.reference)!;
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0); // the bank does not allow it yet
    session.stage = 'ready'; // the next poll finds it
    const status = await finalStatus(handle);

    expect(status.state).toBe('cancelled');
    expect(session.stage).toBe('cancelled');
    expect(callsOf(calls, 'cancelSession').map((c) => c.input)).toEqual([
      expect.objectContaining({ sessionId: session.id }),
    ]);
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
  });
});

test('after ready_to_confirm, before the confirm (awaiting approval): the session is cancelled at once', async () => {
  const bank = new FakeBank();
  const { authorization } = approverPolicy(ts);
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank, { authorization }), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    expect(await cancelIn(handle, 'awaiting_approval')).toMatch(/^cancel requested/);
    const status = await finalStatus(handle);

    expect(status.state).toBe('cancelled');
    expect(status.failure?.reason).toBe('cancelled by oncall');
    const session = bank.sessionOf(request.reference)!;
    expect(session.stage).toBe('cancelled');
    expect(callsOf(calls, 'cancelSession')).toHaveLength(1);
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
    // Cancelled when asked, not at the approval deadline hours later.
    const took = Date.parse(status.timestamps.finished!) - Date.parse(status.timestamps.readyToConfirm!);
    expect(took).toBeLessThan(60 * 60_000);
  });
});

test('after the confirm: too late, the answer says so, and the payout is paid as confirmed', async () => {
  const bank = new FakeBank();
  bank.onRead = (s) => {
    if (s.stage === 'processing') s.stage = 'ready'; // confirmed payouts stay in progress until the test says
  };
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    expect(await cancelIn(handle, 'awaiting_result')).toBe(
      'too late to cancel: the payout was confirmed (awaiting_result)',
    );
    const session = bank.sessionOf(request.reference)!;
    session.stage = 'succeeded';
    const status = await finalStatus(handle);

    expect(status.state).toBe('succeeded');
    expect(status.notes.some((n) => n.startsWith('cancel requested'))).toBe(false);
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0);
  });
});
