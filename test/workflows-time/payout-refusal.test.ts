import { approvePayoutUpdate } from '../../workflows/contracts/payout';
import { taxpayerVerdictSignal } from '../../workflows/contracts/taxpayer';
import { payoutRequest } from '../harness/payouts';
import { waitFor } from '../harness/wait';
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

// Refusals that come after the payout was allowed: by the bank after an approver approved it, and a
// taxpayer verdict that refuses the recipient after the session was created (docs/payouts.md).

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

test('a refusing taxpayer verdict that arrives while the session is created: no confirm, session cancelled, rejected', async () => {
  const bank = new FakeBank();
  const request = payoutRequest({ selfEmployed: true });
  const stubs = payoutStubs(bank, {
    verdict: ALLOWING_VERDICT, // what the look-up read, and created the session on
    meanwhile: async (workflowId) => {
      const handle = ts.reader.workflow.getHandle(workflowId);
      await handle.signal(taxpayerVerdictSignal, { ...ALLOWING_VERDICT, isLinked: false });
      // A look-up that outlasts the workflow task: the worker keeps the task alive, and the signal reaches
      // the workflow before the look-up's answer (a quick look-up's answer is applied in the same task).
      await waitFor(
        async () =>
          (await handle.fetchHistory()).events!.some((e) => e.workflowExecutionSignaledEventAttributes),
        60_000,
        'the verdict signal in the payout’s history',
      );
    },
  });
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    // A short task timeout: the worker keeps a task with a local activity alive at 80 % of it.
    const handle = await startPayout(ts, taskQueue, { request }, { workflowTaskTimeout: '3 seconds' });
    const status = await finalStatus(handle);

    expect(status.state).toBe('rejected');
    expect(status.failure?.code).toBe('not_linked');
    const session = bank.sessionOf(request.reference)!;
    expect(session.stage).toBe('cancelled');
    expect(callsOf(calls, 'createPayoutSession')).toHaveLength(0); // the look-up created it
    expect(callsOf(calls, 'confirmSession')).toHaveLength(0);
    expect(callsOf(calls, 'cancelSession')).toHaveLength(1);
  });
});
