import { randomUUID } from 'node:crypto';
import { TEST_INNS } from '../../src/sandbox/test-values';
import { refundStatusQuery, refundWorkflowId } from '../../workflows/refund/contract';
import { refundWorkflow } from '../../workflows/refund/workflow';
import { FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { succeededPayment } from '../harness/payments';
import { recordHistoryIfAsked } from '../harness/replay';
import { startStack, type Stack } from '../harness/stack';
import { requestsTo } from '../harness/payouts';
import { waitFor } from '../harness/wait';

describe('payouts survive what real banks do to webhooks', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { timings: { npdPendingMs: 3_000 } } });
  });
  afterAll(async () => stack?.stop());
  afterEach(() => stack.sandbox.setFaults({}));

  it('waits while the tax service answers pending', async () => {
    const request = payoutRequest({
      recipient: { ...payoutRequest().recipient, taxReference: TEST_INNS.WITH_DEBT },
    });
    const started = Date.now();
    const status = await outcome(await startPayout(stack, request));
    expect(status.state).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('pays once when the look-up’s create reached the bank but its answer was lost', async () => {
    // The one attempt that creates with the look-up fails; the separate create, under the same
    // idempotency key, gets the session the bank already made, and the payout confirms it once.
    stack.sandbox.setFaults({
      http: [{ kind: 'error_after', paths: ['/api/v1/session/init/payout'], times: 1, status: 500 }],
    });
    const request = payoutRequest({ selfEmployed: false });
    const createsBefore = await requestsTo(stack, 'session/init/payout');
    const handle = await startPayout(stack, request, FAST);
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(status.notes.join('\n')).toMatch(/creating the session with the look-up failed .*step by step/);
    const sessions = Object.values(stack.sandbox.sandbox.state.sessions).filter((x) =>
      JSON.stringify(x.metadata ?? {}).includes(handle.workflowId),
    );
    expect(sessions.map((x) => x.id)).toEqual([status.bank.sessionId]);
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    // The failed attempt and the separate create: nothing else asked the bank meanwhile.
    expect((await requestsTo(stack, 'session/init/payout')) - createsBefore).toBe(2);
  });

  it('recovers a lost ready_to_confirm by polling session/status', async () => {
    stack.sandbox.setFaults({ webhooks: [{ kind: 'drop', types: ['ready_to_confirm'] }] });
    const request = payoutRequest();
    const status = await outcome(await startPayout(stack, request, FAST));
    expect(status.state).toBe('succeeded');
    expect(status.notes.join('\n')).toMatch(/recovered by polling/);
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('pays once and confirms once when webhooks come twice and out of order', async () => {
    stack.sandbox.setFaults({
      webhooks: [
        { kind: 'duplicate', types: ['ready_to_confirm', 'payment_finished'] },
        { kind: 'reorder', types: ['ready_to_confirm'], delayMs: 1_500 },
      ],
    });
    const confirmsBefore = await requestsTo(stack, 'session/confirm');
    const request = payoutRequest({
      recipient: { ...payoutRequest().recipient, taxReference: TEST_INNS.SELF_EMPLOYED_LINKED },
    });
    const handle = await startPayout(stack, request, { pollAfterMs: 30_000 });
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    expect((await requestsTo(stack, 'session/confirm')) - confirmsBefore).toBe(1);
    const attempts = stack.sandbox
      .webhookAttempts()
      .filter((a) => JSON.stringify(a).includes(status.bank.sessionId!));
    expect(attempts.length).toBeGreaterThanOrEqual(4); // the duplicates really were sent
  });
});

describe('refund workflow', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('refunds part of a succeeded payment once and ends refunded', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const reference = `rf-${randomUUID()}`;
    const handle = await stack.client.workflow.start(refundWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: refundWorkflowId(reference),
      args: [{ reference, sessionId, amount: 20_000, pollAfterMs: 2_000 }],
    });
    const status = await handle.result();
    expect(status.state).toBe('refunded');
    expect(status.refundId).toMatch(/^rf_/);
    const refunds = stack.sandbox.ledger().filter((e) => e.kind === 'refund' && e.session_id === sessionId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.amount).toBe(20_000);
    await recordHistoryIfAsked('refund-guarded', handle);
  });

  it('a forged payment_refunded ends nothing and a null one is noted: refunded only when the bank says so', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const timings = stack.sandbox.sandbox.timings;
    const refundMs = timings.refundMs;
    timings.refundMs = 3_600_000; // the bank takes an hour to accept this refund
    try {
      const reference = `rf-${randomUUID()}`;
      const handle = stack.client.workflow.getHandle(refundWorkflowId(reference));
      await stack.client.workflow.start(refundWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: refundWorkflowId(reference),
        args: [{ reference, sessionId, amount: 10_000, pollAfterMs: 3_600_000 }],
      });
      const status = () => handle.query(refundStatusQuery);
      await waitFor(async () => (await status()).state === 'awaiting_refund', 30_000, 'refund requested');
      const { refundId } = await status();
      const readsBefore = await requestsTo(stack, 'session/status');
      await handle.signal('bankEvent', null);
      await handle.signal('bankEvent', {
        id: `forged-${randomUUID()}`,
        type: 'payment_refunded',
        sessionId,
        receivedAt: new Date().toISOString(),
        session: {
          id: sessionId,
          status: 'accepted',
          acquiring_payments: [
            {
              id: 'ap_1',
              status: 'succeeded',
              refunds: [{ id: refundId, status: 'accepted', amount: 10_000 }],
            },
          ],
        },
      });
      // The forged event prompts one read of the session; the bank says the refund is still pending.
      await waitFor(
        async () => (await requestsTo(stack, 'session/status')) > readsBefore,
        30_000,
        'a session/status read',
      );
      const waiting = await status();
      expect(waiting.state).toBe('awaiting_refund');
      expect(waiting.notes.join('\n')).toMatch(/ignored a malformed bankEvent signal/);
      await stack.sandbox.advance(3_600_000); // the bank accepts it and sends the real payment_refunded
      const done = await handle.result();
      expect(done.state).toBe('refunded');
      expect(done.refundId).toBe(refundId);
    } finally {
      timings.refundMs = refundMs;
    }
  });
});
