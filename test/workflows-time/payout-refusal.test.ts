import { approvePayoutUpdate, taxpayerVerdictSignal } from './imports';
import { payoutRequest } from '../harness/payouts';
import { callsOf, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { FakeBank } from './fake-bank';
import {
  ALLOWING_VERDICT,
  approverPolicy,
  finalStatus,
  payoutStubs,
  startPayout,
  untilState,
} from './payout-stubs';

// Refusals that come after the payout was allowed or started: by the bank after an approver approved it,
// and by the taxpayer check, whose verdict the payout reads itself: a taxpayerVerdict signal only wakes it
// (issue 23), so a forged allowing verdict cannot get a refused recipient paid (docs/payouts.md).

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

test('approved, confirmed once, then the bank declines the payment: failed with the bank’s code', async () => {
  const bank = new FakeBank();
  bank.onRead = (s) => {
    if (s.stage === 'processing') s.stage = 'ready';
    else if (s.stage === 'in_progress')
      Object.assign(s, { stage: 'failed', errorCode: 'declined_by_issuer_bank' });
  };
  const { authorization, approvalOf } = approverPolicy(ts);
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank, { authorization }), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'awaiting_approval');
    expect(await handle.executeUpdate(approvePayoutUpdate, { args: [await approvalOf(handle)] })).toBe(
      'approved',
    );
    const status = await finalStatus(handle);

    expect(status.state).toBe('failed');
    expect(status.failure?.code).toBe('declined_by_issuer_bank');
    expect(status.approval?.approvedBy).toBe('approver');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0);
  });
});

test('approved, then the bank refuses the confirm itself: the session decides (failed), confirmed only once', async () => {
  const bank = new FakeBank();
  const { authorization, approvalOf } = approverPolicy(ts);
  const request = payoutRequest({ selfEmployed: false });
  await withStubWorker(ts, payoutStubs(bank, { authorization }), async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'awaiting_approval');
    // Meanwhile the bank gave up on the session: the confirm is refused and session/status says why.
    const session = bank.sessionOf(request.reference)!;
    Object.assign(session, { stage: 'failed', errorCode: 'insufficient_funds' });
    bank.refuseConfirm = 'invalid_session_state';
    await handle.executeUpdate(approvePayoutUpdate, { args: [await approvalOf(handle)] });
    const status = await finalStatus(handle);

    expect(status.state).toBe('failed');
    expect(status.failure?.code).toBe('insufficient_funds');
    expect(callsOf(calls, 'confirmSession')).toHaveLength(1);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(0);
  });
});

test('the taxpayer check refuses after the payout started: a signalled verdict only wakes it, the check’s own verdict rejects it before any session', async () => {
  const bank = new FakeBank();
  const request = payoutRequest({ selfEmployed: true });
  // The look-up asked the taxpayer workflow (no verdict yet); its own check then refuses the recipient.
  const stubs = payoutStubs(bank, { ownCheck: { ...ALLOWING_VERDICT, isLinked: false } });
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const handle = await startPayout(ts, taskQueue, { request });
    await untilState(ts, handle, 'checking_taxpayer');
    // Anyone can send this signal: an allowing verdict in it is not believed, it only wakes the payout.
    await handle.signal(taxpayerVerdictSignal, ALLOWING_VERDICT);
    const status = await finalStatus(handle);

    expect(status.state).toBe('rejected');
    expect(status.failure?.code).toBe('not_linked');
    // The claim went to the create, which checked it with the taxpayer workflow and created nothing;
    // then the payout read the check's own verdict back.
    expect(callsOf(calls, 'createPayoutSession')).toHaveLength(1);
    expect(callsOf(calls, 'taxpayerVerdict')).toHaveLength(1);
    expect(bank.sessions.size).toBe(0);
    for (const call of ['confirmSession', 'cancelSession'] as const)
      expect(callsOf(calls, call)).toHaveLength(0);
  });
});
