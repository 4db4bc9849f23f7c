import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { PaymentSession } from '../../src/bank';
import {
  callsOf,
  skipUntil,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type TimeSkipping,
} from '../harness/time-skipping';
import { bankEventSignal, refundStatusQuery, refundWorkflowId, type RefundStatus } from './imports';

// The refund workflow's waits (docs/payouts.md, "A refund"): after session/refund it polls
// session/status from pollAfterMs, doubling, until the refund is accepted; a payment_refunded event
// for its session wakes it at once (and only prompts a read); a refusal ends it with nothing refunded.

const MINUTE = 60_000;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

/** One succeeded acquiring payment whose refunds the bank accepts when `accepts()` says so. */
function fakeAcquiring(sessionId: string, accepts: () => Promise<boolean>) {
  const refunds: { id: string; status: string }[] = [];
  const session = (): PaymentSession => ({
    id: sessionId,
    status: 'accepted',
    acquiring_payments: [{ id: 'pay-1', status: 'succeeded', refunds: refunds.map((r) => ({ ...r })) }],
  });
  const readTimes: number[] = [];
  const stubs: StubActivities = {
    earlierRefundRuns: async () => [],
    getSession: async () => {
      readTimes.push(await ts.env.currentTimeMs());
      for (const r of refunds) if (r.status === 'pending' && (await accepts())) r.status = 'accepted';
      return session();
    },
    refundSession: async () => {
      refunds.push({ id: `rf-${refunds.length + 1}`, status: 'pending' });
      return session();
    },
  };
  return { stubs, readTimes, refunds };
}

const startRefund = (taskQueue: string, sessionId: string, pollAfterMs?: number) => {
  const reference = `t-${randomUUID()}`;
  return ts.client.workflow.start('refundWorkflow', {
    taskQueue,
    workflowId: refundWorkflowId(reference),
    args: [{ reference, sessionId, ...(pollAfterMs ? { pollAfterMs } : {}) }],
  });
};

test('the payment_refunded webhook is lost: polls after 1, 3 and 7 minutes (doubling) find the refund accepted', async () => {
  let requestedAt = 0;
  const bank = fakeAcquiring(
    'ses-lost-webhook',
    async () => (await ts.env.currentTimeMs()) - requestedAt >= 5 * MINUTE,
  );
  bank.stubs.refundSession = ((create) => async (input) => {
    requestedAt = await ts.env.currentTimeMs();
    return create!(input);
  })(bank.stubs.refundSession);
  await withStubWorker(ts, bank.stubs, async ({ taskQueue, calls }) => {
    const handle = await startRefund(taskQueue, 'ses-lost-webhook');
    const status = (await handle.result()) as RefundStatus;

    expect(status.state).toBe('refunded');
    expect(status.refundId).toBe('rf-1');
    expect(status.notes.join('\n')).toContain('webhook late or lost');
    expect(callsOf(calls, 'refundSession')).toHaveLength(1);
    // The first read is before the request; then the polls, each interval twice the last.
    const gaps = bank.readTimes.slice(1).map((t) => Math.round((t - requestedAt) / MINUTE));
    expect(gaps).toEqual([1, 3, 7]);
  });
});

test('a payment_refunded event for its session wakes it before the hour’s poll; another session’s does not', async () => {
  const sessionId = 'ses-webhook';
  const bank = fakeAcquiring(sessionId, async () => true);
  await withStubWorker(ts, bank.stubs, async ({ taskQueue }) => {
    const handle = await startRefund(taskQueue, sessionId, 60 * MINUTE);
    await skipUntil(
      ts,
      async () => (await handle.query(refundStatusQuery)).state === 'awaiting_refund',
      'the refund requested',
      1_000,
    );
    const event = (id: string, forSession: string) => ({
      id,
      type: 'payment_refunded' as const,
      sessionId: forSession,
      receivedAt: new Date().toISOString(),
    });
    await ts.env.sleep(10 * MINUTE);
    await handle.signal(bankEventSignal, event('evt-other', 'ses-someone-else'));
    await ts.env.sleep(10 * MINUTE);
    expect((await handle.query(refundStatusQuery)).state).toBe('awaiting_refund');
    expect(bank.readTimes).toHaveLength(1);

    await handle.signal(bankEventSignal, event('evt-ours', sessionId));
    const status = (await handle.result()) as RefundStatus;
    expect(status.state).toBe('refunded');
    expect(status.notes.join('\n')).not.toContain('webhook late or lost');
    const took = Date.parse(status.timestamps.refunded!) - Date.parse(status.timestamps.requested!);
    expect(took).toBeGreaterThanOrEqual(20 * MINUTE);
    expect(took).toBeLessThan(60 * MINUTE);
    expect(bank.readTimes).toHaveLength(2);
  });
});

test('the bank refuses session/refund: failed at once with the bank’s code, no polling', async () => {
  const bank = fakeAcquiring('ses-refused', async () => true);
  bank.stubs.refundSession = async () => {
    throw ApplicationFailure.nonRetryable('amount exceeds what is left', 'refund_amount_exceeded');
  };
  await withStubWorker(ts, bank.stubs, async ({ taskQueue, calls }) => {
    const handle = await startRefund(taskQueue, 'ses-refused');
    const err = await handle.result().catch((e: unknown) => e);

    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('refund_failed');
    const status = cause.details![0] as RefundStatus;
    expect(status.state).toBe('failed');
    expect(status.failure?.code).toBe('refund_amount_exceeded');
    expect(callsOf(calls, 'getSession')).toHaveLength(1);
  });
});
