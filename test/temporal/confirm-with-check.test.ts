import { FAST, outcome, paidEntries, payoutRequest, requestsTo, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { cancelPayoutUpdate, type PayoutOptions } from '../../workflows/payout/contract';
import { recordHistoryIfAsked } from '../harness/replay';
import { waitFor } from '../harness/wait';

/** The local activities a payout's history ran, in order (core writes each marker's header as plain JSON). */
async function localActivities(stack: Stack, workflowId: string): Promise<string[]> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const header = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    if (!header || e.markerRecordedEventAttributes?.markerName !== 'core_local_activity') return [];
    return [(JSON.parse(Buffer.from(header).toString()) as { activity_type: string }).activity_type];
  });
}

const WITH_CHECK: PayoutOptions = { ...FAST, confirmWithCheck: true };

// issue 38's trim: the webhook check that finds the session ready sends the confirm itself, against the
// real stack (dev server, worker, ingress and the bank sandbox over HTTP), counted at the bank.
describe('the confirm sent with the webhook check', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({});
  });
  afterAll(async () => stack?.stop());
  afterEach(() => stack.sandbox.setFaults({}));

  it('pays once with one confirm, in one local activity fewer than a payout without it', async () => {
    const confirmsBefore = await requestsTo(stack, 'session/confirm');
    const [folded, plain] = [payoutRequest({ selfEmployed: false }), payoutRequest({ selfEmployed: false })];
    const [a, b] = await Promise.all([
      startPayout(stack, folded, WITH_CHECK),
      startPayout(stack, plain, FAST),
    ]);
    expect((await outcome(a)).state).toBe('succeeded');
    expect((await outcome(b)).state).toBe('succeeded');
    expect(paidEntries(stack, folded.reference)).toHaveLength(1);
    expect(paidEntries(stack, plain.reference)).toHaveLength(1);
    expect((await requestsTo(stack, 'session/confirm')) - confirmsBefore).toBe(2);
    expect(await localActivities(stack, a.workflowId)).toEqual([
      'beforeCreating',
      'sessionsFromWebhooks',
      'sessionsFromWebhooks',
    ]);
    await recordHistoryIfAsked('payout-confirm-with-check', a);
    // Without the option (runs recorded before it, payouts started by hand) the confirm is a step of its own.
    expect(await localActivities(stack, b.workflowId)).toEqual([
      'beforeCreating',
      'sessionsFromWebhooks',
      'confirmSession',
      'sessionsFromWebhooks',
    ]);
  });

  it('confirms once when ready_to_confirm comes twice and out of order', async () => {
    stack.sandbox.setFaults({
      webhooks: [
        { kind: 'duplicate', types: ['ready_to_confirm', 'payment_finished'] },
        { kind: 'reorder', types: ['ready_to_confirm'], delayMs: 1_500 },
      ],
    });
    const confirmsBefore = await requestsTo(stack, 'session/confirm');
    const request = payoutRequest();
    const status = await outcome(await startPayout(stack, request, { ...WITH_CHECK, pollAfterMs: 30_000 }));
    expect(status.state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    expect((await requestsTo(stack, 'session/confirm')) - confirmsBefore).toBe(1);
  });

  it('pays once when the confirm sent with the check loses its answer: the confirm step sends the same key', async () => {
    stack.sandbox.setFaults({
      http: [{ kind: 'error_after', paths: ['/api/v1/session/confirm'], times: 1, status: 500 }],
    });
    const confirmsBefore = await requestsTo(stack, 'session/confirm');
    const request = payoutRequest({ selfEmployed: false });
    const handle = await startPayout(stack, request, WITH_CHECK);
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(status.notes.join('\n')).toMatch(/confirm with the webhook check did not finish/);
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    expect((await requestsTo(stack, 'session/confirm')) - confirmsBefore).toBe(2);
    expect(await localActivities(stack, handle.workflowId)).toEqual([
      'beforeCreating',
      'sessionsFromWebhooks',
      'confirmSession',
      'sessionsFromWebhooks',
    ]);
  });

  it('refuses a cancel that arrives while the check is sending the confirm, and pays once', async () => {
    // The bank holds the confirm well past the worker's heartbeat of the workflow task (8 s), so the
    // Update lands while the check is under way; a loaded machine may deliver it only after the check
    // ended, when the answer is the plain "confirmed" one. Either way no cancel may be promised.
    stack.sandbox.setFaults({
      http: [{ kind: 'latency', paths: ['/api/v1/session/confirm'], times: 1, latencyMs: 20_000 }],
    });
    const confirmsBefore = await requestsTo(stack, 'session/confirm');
    const request = payoutRequest({ selfEmployed: false });
    const handle = await startPayout(stack, request, WITH_CHECK);
    await waitFor(
      async () => (await requestsTo(stack, 'session/confirm')) > confirmsBefore,
      60_000,
      'the confirm sent with the check reached the bank',
    );
    const answer = await handle.executeUpdate(cancelPayoutUpdate, { args: [{ by: 'ops.oncall' }] });
    expect(answer).toMatch(
      /^too late to cancel: (the confirm may be under way; ask again to see|the payout was confirmed \(\w+\))$/,
    );
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    expect((await requestsTo(stack, 'session/confirm')) - confirmsBefore).toBe(1);
    await recordHistoryIfAsked('payout-confirm-with-check-cancel-refused', handle);
  });
});
