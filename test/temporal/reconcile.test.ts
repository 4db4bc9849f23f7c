import { lookupPayout } from '../../src/batch/services/lookup';
import { payoutStatus, reconcile } from '../../src/cli/payout';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import { FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { useLanguage } from '../harness/lang';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// A payout whose workflow was terminated mid-way is in doubt: `payrun payout reconcile` asks the bank.
describe('payouts in doubt are settled with the bank', () => {
  useLanguage('en');
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  const waitForState = (handle: Awaited<ReturnType<typeof startPayout>>, state: string) =>
    waitFor(async () => (await handle.query(payoutStatusQuery)).state === state, 60_000, state);

  it('terminated before confirm: reconcile cancels the session, the reference is then paid exactly once', async () => {
    const request = payoutRequest();
    const handle = await startPayout(stack, request, { ...FAST, requireApproval: true });
    await waitForState(handle, 'awaiting_approval');
    await handle.terminate('operator pulled the plug');
    const lookup = await lookupPayout(stack.client, payoutWorkflowId(request.reference));
    expect(lookup.kind).toBe('needs_attention');
    // What to do leads; the state the run last reported comes after, marked as such.
    const shown = await payoutStatus(stack.client, request.reference);
    // This suite reads English (useLanguage above).
    expect(shown[0]).toMatch(new RegExp(`^${request.reference}: needs attention: .*payrun payout reconcile`));
    expect(shown[1]).toMatch(new RegExp(`^last known: ${request.reference}: awaiting[ _]approval`));

    expect(await reconcile(stack.client, request.reference, stack.taskQueue)).toMatch(/paid nothing/);
    expect(await lookupPayout(stack.client, payoutWorkflowId(request.reference))).toMatchObject({
      kind: 'not_paid',
    });
    const again = await outcome(await startPayout(stack, request));
    expect(again.state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('terminated after confirm: reconcile finds it paid, and no later run pays it again', async () => {
    await stack.sandbox.setFaults({ webhooks: [{ kind: 'drop', types: ['payment_finished'], times: 1 }] });
    try {
      const request = payoutRequest({ selfEmployed: false });
      const handle = await startPayout(stack, request, { pollAfterMs: 3_600_000 });
      await waitForState(handle, 'awaiting_result');
      await waitFor(async () => paidEntries(stack, request.reference).length === 1, 30_000, 'the bank pays');
      await handle.terminate('operator pulled the plug');

      expect(await reconcile(stack.client, request.reference, stack.taskQueue)).toMatch(/the bank paid it/);
      expect(await lookupPayout(stack.client, payoutWorkflowId(request.reference))).toMatchObject({
        kind: 'paid',
      });
      expect(await reconcile(stack.client, request.reference, stack.taskQueue)).toMatch(
        /nothing to reconcile/,
      );
      // A batch or a person starting it again is refused by the run itself.
      const retry = await startPayout(stack, request);
      await expect(outcome(retry)).resolves.toMatchObject({ state: 'succeeded' }); // the earlier run's status
      expect(paidEntries(stack, request.reference)).toHaveLength(1);
    } finally {
      await stack.sandbox.setFaults({});
    }
  });
});
