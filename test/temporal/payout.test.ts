import { taxpayerWorkflowId } from '../../src/temporal/person-ids';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import { inboxQuery } from '../../workflows/webhook-inbox/contract';
import {
  approveSignal,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
} from '../../workflows/payout/contract';
import { taxpayerVerdictSignal } from '../../workflows/taxpayer/contract';
import { payoutWorkflow } from '../../workflows/payout/workflow';
import { FAST, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { recordHistoryIfAsked } from '../harness/replay';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { payoutApproval } from '../harness/approvals';

/** One of the ingress's counters, e.g. `payrun_ingress_requests_total{outcome="late"}`. */
async function ingressCounter(stack: Stack, series: string): Promise<number> {
  const text = await (await fetch(`${stack.ingress.internalUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return Number(line?.slice(series.length + 1) ?? NaN);
}
/** Bank events the ingress answered as late (their workflows had closed). */
const lateCount = (stack: Stack) => ingressCounter(stack, 'payrun_ingress_requests_total{outcome="late"}');
/** Visibility queries the ingress made to route events. */
const lookupCount = (stack: Stack) => ingressCounter(stack, 'payrun_ingress_visibility_lookups_total');

/** The sandbox (the bank) saw its confirmation_payout for a session answered 200. */
async function confirmationAnswered(stack: Stack, sessionId: string): Promise<boolean> {
  const res = await fetch(`${stack.sandbox.url}/__admin/webhooks`);
  const { attempts } = (await res.json()) as {
    attempts: { type: string; session_id: string | null; http_status: number | null }[];
  };
  return attempts.some(
    (a) => a.type === 'confirmation_payout' && a.session_id === sessionId && a.http_status === 200,
  );
}

// The whole chain over real HTTP: worker → sandbox (signed API) → webhooks → ingress → signals.
describe('payout workflow end to end against the bank sandbox', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('pays a self-employed recipient once and keeps the receipt', async () => {
    // A first payout to the same person leaves a fresh verdict; the one recorded (and held to its event
    // budget by replay.test.ts) uses it.
    const lateBefore = await lateCount(stack);
    const lookupsBefore = await lookupCount(stack);
    const warmUp = await outcome(await startPayout(stack, payoutRequest()));
    const request = payoutRequest();
    // Production's poll interval: with the tests' 1 s a poll may fire in the middle of the last task.
    const handle = await startPayout(stack, request, { pollAfterMs: 60_000 });
    const status = await outcome(handle);

    expect(status.state).toBe('succeeded');
    expect(status.bank.sessionId).toMatch(/^ps_/);
    expect(status.bank.payoutId).toMatch(/^po_/);
    expect(status.bank.receiptId).toBeTruthy();
    expect(status.bank.receiptLink).toMatch(/^https?:\/\//);
    expect(status.taxpayer).toMatchObject({ isProfessionalIncomeTaxpayer: true, isLinked: true });
    // Both webhooks were believed on the bank's signature, checked by the worker: no session/status read.
    const notes = status.notes.join('\n');
    expect(notes).toMatch(/ready_to_confirm event received; checking the bank's signature/);
    expect(notes).toMatch(/payment_finished event received; checking the bank's signature/);
    expect(notes).not.toMatch(/reading session\/status|did not believe/);
    expect(Object.keys(status.timestamps)).toEqual(
      expect.arrayContaining(['started', 'sessionCreated', 'readyToConfirm', 'confirmed', 'finished']),
    );
    const paid = paidEntries(stack, request.reference);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ amount: request.amount, session_id: status.bank.sessionId });
    await recordHistoryIfAsked('payout-succeeded', handle);

    // Its confirmation_payout comes after the workflow closed: answered 200 and counted as late by the
    // ingress, never a signal to the one inbox workflow (one per paid row would make it a bottleneck).
    for (const sessionId of [warmUp.bank.sessionId, status.bank.sessionId])
      await waitFor(
        () => confirmationAnswered(stack, sessionId!),
        30_000,
        'confirmation_payout answered 200',
      );
    expect(await lateCount(stack)).toBeGreaterThanOrEqual(lateBefore + 2);
    // Every event of both payouts found its workflow without a visibility query: metadata named the
    // payout, and the late confirmation_payout (no metadata) went to the payout remembered for its session.
    expect(await lookupCount(stack)).toBe(lookupsBefore);
    const inbox = stack.client.workflow.getHandle(`inbox-${stack.taskQueue}`);
    const view = await inbox.query(inboxQuery).catch(() => undefined); // absent: nothing ever went there
    const mentions = (id?: string) => id === status.bank.sessionId;
    expect(view?.late.last.filter((l) => mentions(l.sessionId)) ?? []).toEqual([]);
    expect(view?.pending.filter((p) => mentions(p.sessionId)) ?? []).toEqual([]);
    expect(view?.orphaned.filter((o) => mentions(o.event.sessionId)) ?? []).toEqual([]);
    // The per-tax-number workflow and the webhook inbox are long-lived: their histories so far.
    const taxpayer = taxpayerWorkflowId(request.recipient.taxReference, stack.taskQueue);
    await recordHistoryIfAsked('taxpayer-verdict', stack.client.workflow.getHandle(taxpayer));
  });

  it('ends failed with the bank code when the issuer declines', async () => {
    const request = payoutRequest({ method: { type: 'card', cardNumber: TEST_CARDS.DECLINED_BY_ISSUER } });
    const handle = await startPayout(stack, request);
    const status = await outcome(handle);
    expect(status.state).toBe('failed');
    expect(status.failure?.code).toBe('declined_by_issuer_bank');
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
    await recordHistoryIfAsked('payout-declined', handle);
  });

  it.each([
    ['not_self_employed', TEST_INNS.NOT_SELF_EMPLOYED],
    ['not_linked', TEST_INNS.SELF_EMPLOYED_NOT_LINKED],
  ])('rejects (%s) without creating a bank session, asked or already known', async (code, inn) => {
    const before = stack.sandbox.ledger().length;
    const sessions = () => Object.keys(stack.sandbox.sandbox.state.sessions).length;
    const sessionsBefore = sessions();
    const checkedAt: (string | undefined)[] = [];
    // The second payout finds the verdict fresh: the look-up that would create its session must not.
    for (let i = 0; i < 2; i++) {
      const request = payoutRequest({ recipient: { ...payoutRequest().recipient, taxReference: inn } });
      const status = await outcome(await startPayout(stack, request));
      expect(status.state).toBe('rejected');
      expect(status.failure?.code).toBe(code);
      expect(status.bank.sessionId).toBeUndefined();
      checkedAt.push(status.taxpayer?.checkedAt);
    }
    expect(checkedAt[1]).toBe(checkedAt[0]); // one check, known to the second payout
    expect(sessions()).toBe(sessionsBefore);
    expect(stack.sandbox.ledger().length).toBe(before);
  });

  it('takes no verdict from a taxpayerVerdict signal sent with the start: the taxpayer workflow’s own one decides', async () => {
    // Issue 23: a taxpayerVerdict signal sent by hand (as from the Temporal CLI) with the start was taken as
    // the verdict and rejected a linked recipient. A signal now only wakes the payout, which reads the verdict.
    // A linked self-employed recipient, whose allowing verdict the worker holds once one payout is paid.
    expect((await outcome(await startPayout(stack, payoutRequest()))).state).toBe('succeeded');
    const request = payoutRequest();
    const input: PayoutInput = { request, options: FAST };
    const handle = await stack.client.workflow.signalWithStart(payoutWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: payoutWorkflowId(request.reference),
      args: [input],
      signal: taxpayerVerdictSignal,
      signalArgs: [
        { isProfessionalIncomeTaxpayer: true, isLinked: false, checkedAt: new Date().toISOString() },
      ],
    });
    const status = await outcome(handle);
    expect(status).toMatchObject({ state: 'succeeded', taxpayer: { isLinked: true } });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('waits out the bank approval when the payout requires one', async () => {
    const request = payoutRequest();
    const handle = await startPayout(stack, request, { ...FAST, requireApproval: true });
    await waitFor(async () => (await handle.query(payoutStatusQuery)).state === 'awaiting_approval');
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
    await handle.signal(approveSignal, await payoutApproval(stack, handle, 'approver'));
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(status.approval).toMatchObject({ required: true, approvedBy: 'approver' });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    await recordHistoryIfAsked('payout-approved', handle);
  });

  it('cancels the session and ends expired when approval never comes within the window', async () => {
    const request = payoutRequest();
    const handle = await startPayout(stack, request, {
      ...FAST,
      requireApproval: true,
      confirmWindowMs: 8_000,
      confirmSafetyMarginMs: 3_000,
    });
    const status = await outcome(handle);
    expect(status.state).toBe('expired');
    expect(status.failure?.code).toBe('approval_timeout');
    const session = stack.sandbox.session(status.bank.sessionId!);
    expect(session?.status).toBe('cancelled');
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
  });

  it('is credited when confirmation_payout arrives', async () => {
    const request = payoutRequest();
    const handle = await startPayout(stack, request, {
      ...FAST,
      awaitCreditConfirmation: true,
      creditConfirmationWindowMs: 6_000,
    });
    const status = await outcome(handle);
    expect(status.state).toBe('credited');
    expect(status.timestamps.credited).toBeDefined();
  });

  it('stays succeeded, with a note, when confirmation_payout never arrives', async () => {
    const request = payoutRequest({
      method: { type: 'card', cardNumber: TEST_CARDS.CONFIRMATION_PAYOUT_NEVER },
    });
    const handle = await startPayout(stack, request, {
      ...FAST,
      awaitCreditConfirmation: true,
      creditConfirmationWindowMs: 4_000,
    });
    const status = await outcome(handle);
    expect(status.state).toBe('succeeded');
    expect(status.notes.join('\n')).toMatch(/no confirmation_payout/);
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
  });

  it('ends returned when the recipient bank sends the money back', async () => {
    const request = payoutRequest({ method: { type: 'card', cardNumber: TEST_CARDS.RETURNED } });
    const handle = await startPayout(stack, request, {
      ...FAST,
      awaitCreditConfirmation: true,
      creditConfirmationWindowMs: 20_000,
    });
    const status = await outcome(handle);
    expect(status.state).toBe('returned');
    expect(status.timestamps.returned).toBeDefined();
  });
});
