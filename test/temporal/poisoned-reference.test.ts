import { lookupPayout } from '../../src/batch/services/lookup';
import { payoutStatus, reconcile } from '../../src/cli/payout';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { failureType, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// A run that provably never reached the bank must not hold its reference hostage: anyone who can start
// a workflow could otherwise make a reference unpayable in advance (issue 23).
describe('a reference poisoned by a run that never reached the bank is still paid exactly once', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it.each([
    ['{}', {}],
    ['an amount written as text', { request: { amount: '1500' } }],
  ])(
    'poisoned with %s: the run ends invalid_input, reconcile answers at once, the next run pays once',
    async (_, bad) => {
      const request = payoutRequest({ selfEmployed: false });
      const workflowId = payoutWorkflowId(request.reference);
      const poison = await stack.client.workflow.start('payoutWorkflow', {
        workflowId,
        taskQueue: stack.taskQueue,
        args: [bad],
      });
      expect(await failureType(poison)).toBe('invalid_input');

      expect(await lookupPayout(stack.client, workflowId)).toMatchObject({
        kind: 'not_paid',
        status: { failure: { code: 'moved_nothing' } },
      });
      expect(await reconcile(stack.client, request.reference, stack.taskQueue)).toMatch(/не выплачено/);
      expect((await payoutStatus(stack.client, request.reference)).join('\n')).toMatch(
        /референс можно оплатить снова/,
      );

      const paid = await outcome(await startPayout(stack, request));
      expect(paid.state).toBe('succeeded');
      expect(paidEntries(stack, request.reference)).toHaveLength(1);
      // …and a run after that is refused as already paid, still one payment.
      expect(await failureType(await startPayout(stack, request))).toBe('payout_already_paid');
      expect(paidEntries(stack, request.reference)).toHaveLength(1);
    },
  );

  it('a run terminated before its first workflow task moved nothing; the next run pays once', async () => {
    const request = payoutRequest({ selfEmployed: false });
    const workflowId = payoutWorkflowId(request.reference);
    // No worker polls this queue: the run is terminated with its first workflow task still scheduled,
    // as in a TerminateExisting race at 0 ms, but without racing anything.
    const nobody = await stack.client.workflow.start('payoutWorkflow', {
      workflowId,
      taskQueue: `${stack.taskQueue}-no-worker`,
      args: [{ request, options: { pollAfterMs: 1_000 } }],
    });
    await nobody.terminate('race: a second start terminated the first');

    const lookup = await lookupPayout(stack.client, workflowId);
    expect(lookup).toMatchObject({ kind: 'not_paid', status: { reference: request.reference } });
    expect(lookup.kind === 'not_paid' && lookup.status.failure?.reason).toMatch(/no workflow task started/);

    const paid = await outcome(await startPayout(stack, request));
    expect(paid.state).toBe('succeeded');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('a run terminated after its worker ran it stays in doubt (the bank is asked, never assumed)', async () => {
    const request = payoutRequest({ selfEmployed: false });
    const handle = await startPayout(stack, request, { pollAfterMs: 1_000, requireApproval: true });
    // The look-up that creates the session is a local activity: once its marker is in history the run
    // may have reached the bank.
    await waitFor(
      async () => ((await handle.fetchHistory()).events ?? []).some((e) => e.markerRecordedEventAttributes),
      60_000,
      'the first bank call recorded',
    );
    await handle.terminate('pulled mid-way');
    expect((await lookupPayout(stack.client, payoutWorkflowId(request.reference))).kind).toBe(
      'needs_attention',
    );
  });
});
