import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import type { BankEventSignal } from '../../workflows/shared/bank-event-contract';
import { approveBatchUpdate, batchProgressQuery } from '../../workflows/batch/contract';
import {
  approvePayoutUpdate,
  cancelPayoutUpdate,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutStatus,
} from '../../workflows/payout/contract';
import type { payoutWorkflow } from '../../workflows/payout/workflow';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { failureType, FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { signedWebhook } from '../harness/signed-webhooks';
import { waitFor } from '../harness/wait';
import { batchDecision, payoutApproval } from '../harness/approvals';

const forged = (type: BankEventSignal['type'], sessionId: string | undefined, payoutStatus: string) => ({
  id: `forged-${randomUUID()}`,
  type,
  sessionId,
  receivedAt: new Date().toISOString(),
  session: {
    id: sessionId ?? 'ps_999999',
    status:
      payoutStatus === 'succeeded' ? 'accepted' : payoutStatus === 'failed' ? 'cancelled' : 'in_progress',
    payments: [
      {
        id: 'po_999999',
        status: payoutStatus,
        error: { code: 'declined_by_issuer_bank', description: 'forged' },
      },
    ],
  },
});

const status = (h: WorkflowHandle<typeof payoutWorkflow>) => h.query(payoutStatusQuery);
const waitForState = (h: WorkflowHandle<typeof payoutWorkflow>, state: PayoutStatus['state']) =>
  waitFor(async () => (await status(h)).state === state, 60_000, `payout state ${state}`);

const privatePem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
/** The bank's key is the test's to know here, so it can sign what the real bank would have signed. */
const bankKey = privatePem();

describe('a workflow believes only the bank and a valid operator; at most once whoever starts it', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { bankPrivateKeyPem: bankKey } });
  });
  afterAll(async () => stack?.stop());

  /** payment_finished is dropped and polls are an hour away: the workflow waits while the bank has paid. */
  const paidButUnfinished = async () => {
    await stack.sandbox.setFaults({ webhooks: [{ kind: 'drop', types: ['payment_finished'], times: 1 }] });
    const request = payoutRequest({ selfEmployed: false });
    const handle = await startPayout(stack, request, { pollAfterMs: 3_600_000 });
    await waitForState(handle, 'awaiting_result');
    await waitFor(async () => paidEntries(stack, request.reference).length === 1, 30_000, 'the bank pays');
    const { sessionId } = (await status(handle)).bank;
    return { request, handle, sessionId };
  };

  it('a forged "failed" event on a payout the bank paid changes nothing, and a re-start pays nothing', async () => {
    const { request, handle, sessionId } = await paidButUnfinished();
    await handle.signal('bankEvent', forged('payment_finished', sessionId, 'failed'));
    const final = await outcome(handle);
    expect(final.state).toBe('succeeded'); // session/status said so, not the forged event
    expect(final.notes.join('\n')).toMatch(/payment_finished event received; reading session\/status/);

    // Temporal's default reuse policy allows a new run of a completed id: the run itself refuses.
    const again = await stack.client.workflow.start('payoutWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: payoutWorkflowId(request.reference),
      args: [{ request, options: FAST } satisfies PayoutInput],
    });
    expect(await failureType(again)).toBe('payout_already_paid');
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    await stack.sandbox.setFaults({});
  });

  it('a forged "succeeded" event before confirm records nothing; cancel then still cancels, nothing paid', async () => {
    const request = payoutRequest();
    const handle = await startPayout(stack, request, { ...FAST, requireApproval: true });
    await waitForState(handle, 'awaiting_approval');
    const { sessionId } = (await status(handle)).bank;
    await handle.signal('bankEvent', forged('payment_finished', sessionId, 'succeeded'));
    await waitFor(async () => (await status(handle)).notes.some((n) => n.includes('payment_finished event')));
    expect((await status(handle)).state).toBe('awaiting_approval');
    expect(
      await handle.executeUpdate(cancelPayoutUpdate, { args: [{ by: 'ops.oncall', reason: 'test' }] }),
    ).toMatch(/cancel requested/);
    const final = await outcome(handle);
    expect(final.state).toBe('cancelled');
    expect(final.timestamps.confirmed).toBeUndefined();
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
  });

  it.each([
    [
      'signed with another key',
      () => privatePem(),
      (own: string) => own,
      /did not believe a bank event: not the bank's webhook \(bad_signature\)/,
    ],
    [
      'the bank’s own word on another session',
      () => bankKey,
      () => 'ps_999999',
      /did not believe a bank event: a webhook about another session ps_999999/,
    ],
  ])(
    'a "signed" failure sent with the CLI is not believed (%s): session/status says paid',
    async (_case, key, about, refusal) => {
      const { request, handle, sessionId } = await paidButUnfinished();
      const failedBody = {
        type: 'payment_finished',
        session: {
          id: about(sessionId!),
          status: 'cancelled',
          payments: [{ id: 'po_999999', status: 'failed', error: { code: 'declined_by_issuer_bank' } }],
        },
      };
      // The signal names this payout's session; only the signed body counts, and only if the bank signed it.
      await handle.signal('bankEvent', {
        ...forged('payment_finished', sessionId, 'failed'),
        signed: signedWebhook(key(), failedBody),
      });
      const final = await outcome(handle);
      expect(final.state).toBe('succeeded');
      expect(final.notes.join('\n')).toMatch(refusal);
      expect(paidEntries(stack, request.reference)).toHaveLength(1);
      await stack.sandbox.setFaults({});
    },
  );

  it('a run under a workflow id that is not payout-<reference> fails invalid_input before any bank call', async () => {
    const request = payoutRequest();
    const before = stack.sandbox.ledger().length;
    const handle = await stack.client.workflow.start('payoutWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `by-hand-${randomUUID()}`,
      args: [{ request, options: FAST } satisfies PayoutInput],
    });
    expect(await failureType(handle)).toBe('invalid_input');
    expect(stack.sandbox.ledger().length).toBe(before);
  });

  it('an event of an earlier attempt’s session is ignored by the next attempt', async () => {
    const reference = `t-${randomUUID()}`;
    const declined = await startPayout(
      stack,
      payoutRequest({ reference, method: { type: 'card', cardNumber: TEST_CARDS.DECLINED_BY_ISSUER } }),
    );
    const first = await outcome(declined);
    expect(first.state).toBe('failed');
    const second = await startPayout(stack, payoutRequest({ reference }));
    await second.signal('bankEvent', {
      ...forged('ready_to_confirm', first.bank.sessionId, 'pending'),
      id: `replayed-${randomUUID()}`,
    });
    const final = await outcome(second);
    expect(final.state).toBe('succeeded');
    expect(final.bank.sessionId).not.toBe(first.bank.sessionId);
    expect(paidEntries(stack, reference)).toHaveLength(1);
  });

  it('malformed operator input is refused to the caller, leaves no update in history, and the workflow still answers', async () => {
    // The bank never finishes this payout (confirm accepted, no payment_finished), so the workflow is
    // still there to answer every command below, however fast the machine is.
    const request = payoutRequest({ method: { type: 'card', cardNumber: TEST_CARDS.STAYS_PENDING } });
    const handle = await startPayout(stack, request, { ...FAST, requireApproval: true });
    await waitForState(handle, 'awaiting_approval');
    for (const arg of [{ by: 123 }, {}, null, { by: '   ' }, 'maria'])
      await expect(handle.executeUpdate('approvePayout', { args: [arg] })).rejects.toBeInstanceOf(
        WorkflowUpdateFailedError,
      );
    await expect(handle.executeUpdate('cancelPayout', { args: [] })).rejects.toBeInstanceOf(
      WorkflowUpdateFailedError,
    );
    // Signals (Temporal UI's way) with no, null or wrong input: noted, ignored, never a stuck task.
    await handle.signal('approve', { by: 123 });
    await handle.signal('approve');
    await handle.signal('cancel', null);
    await handle.signal('bankEvent', null);
    await handle.signal('bankEvent');
    await waitFor(
      async () => (await status(handle)).notes.filter((n) => n.includes('malformed')).length >= 5,
    );
    expect((await status(handle)).state).toBe('awaiting_approval');
    expect((await status(handle)).approval?.approvedBy).toBeUndefined();
    const history = await handle.fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(0);

    expect(
      await handle.executeUpdate(approvePayoutUpdate, {
        args: [await payoutApproval(stack, handle, 'approver')],
      }),
    ).toBe('approved');
    expect(
      await handle.executeUpdate(approvePayoutUpdate, {
        args: [await payoutApproval(stack, handle, 'approver2')],
      }),
    ).toMatch(/already approved by approver/);
    await waitForState(handle, 'awaiting_result');
    expect(await handle.executeUpdate(cancelPayoutUpdate, { args: [{ by: 'late' }] })).toMatch(
      /too late to cancel: the payout was confirmed/,
    );
    const s = await status(handle);
    expect(s.approval?.approvedBy).toBe('approver');
    expect(s.timestamps.confirmed).toBeDefined();
    await handle.terminate('test done: the sandbox never finishes this payout');
  });

  it.each([
    ['{}', {}],
    ['a string amount', { request: { ...payoutRequest(), amount: '1500' } }],
    ['no recipient', { request: { ...payoutRequest(), recipient: undefined } }],
    ['null', null],
  ])('a payout started with %s fails invalid_input at once', async (_, input) => {
    const handle = await stack.client.workflow.start('payoutWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: payoutWorkflowId(`t-${randomUUID()}`),
      args: [input],
    });
    expect(await failureType(handle)).toBe('invalid_input');
  });

  it('a batch awaiting approval ignores cancel null and anonymous approval: nothing paid until a signed approve', async () => {
    const paths = batchTestPaths();
    const references = [`${uniquePrefix()}-a`, `${uniquePrefix()}-b`];
    const r = await dropAndSubmit(
      stack,
      paths,
      'guarded.csv',
      batchCsv(references.map((reference) => ({ reference }))),
      {
        batchOptions: { requireApproval: true },
      },
    );
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(handle, (p) => p.phase === 'awaiting_approval' && p.rows === 2);
    await handle.signal('cancel', null);
    await handle.signal('approve', {});
    await handle.signal('approve', { by: 123 });
    for (const arg of [{}, { by: 123 }, null])
      await expect(handle.executeUpdate('approveBatch', { args: [arg] })).rejects.toBeInstanceOf(
        WorkflowUpdateFailedError,
      );
    const p = await waitForProgress(handle, (x) => (x.notes?.length ?? 0) >= 3);
    expect(p.phase).toBe('awaiting_approval');
    expect(p.dispatched).toBe(0);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([0, 0]);
    expect(
      await handle.executeUpdate(approveBatchUpdate, {
        args: [await batchDecision(stack, paths.dataDir, r.batchId, 'approver')],
      }),
    ).toMatch(/^approved by approver \(1 of 1\): paying may start$/);
    await handle.result();
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);
    expect((await handle.query(batchProgressQuery)).approval).toMatchObject({ by: 'approver' });
  });
});
