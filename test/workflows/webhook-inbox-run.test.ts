/**
 * workflows/webhook-inbox/run.ts: the inbox's whole state is one object, handed whole to continue-as-new.
 * A field added to that state and not carried (left out of `carry`, or kept on the run instead of in its
 * state, or missing from the schema the next run parses) loses what operators see: these tests fail.
 */
import { webhookInboxStateSchema, type WebhookInboxState } from '../../workflows/webhook-inbox/contract';
import { WebhookInboxRun } from '../../workflows/webhook-inbox/run';

const event = (id: string) => ({
  id,
  type: 'payment_finished' as const,
  sessionId: `ps_${id}`,
  receivedAt: '2025-05-14T07:00:00.000Z',
});

/** Every field of the state set, none at its default. */
const FULL: WebhookInboxState = {
  pending: [{ event: event('p'), since: 1_000 }],
  routedCount: 7,
  routed: [{ ...event('r'), routedAt: '2025-05-14T07:01:00.000Z', delivered: ['refund-x'] }],
  orphaned: [{ event: event('o'), orphanedAt: '2025-05-14T07:02:00.000Z', reason: 'nobody took it' }],
  topups: [
    {
      id: 't',
      receivedAt: '2025-05-14T07:03:00.000Z',
      amount: 100,
      currency: 'RUB',
      accountBalance: 5_000,
      paymentDate: '2025-05-14',
      accountNumber: '40702810000000000001',
      docId: 'd',
      docNum: '1',
    },
  ],
  unknown: [{ id: 'u', receivedAt: '2025-05-14T07:04:00.000Z', body: { a: 1 } }],
  dismissedCount: 2,
  late: [{ ...event('l'), owners: ['payout-closed'] }],
  lateCount: 3,
  malformedCount: 4,
  orphansDropped: 5,
  seenIds: ['p', 'r', 'o', 't', 'u', 'l'],
};

/**
 * What the run may keep beside its state: the input it was given, indexes rebuilt from the state, the
 * pending events the input carried (restarted once), and whether its patch applies (read at each start).
 */
const NOT_STATE = ['input', 'options', 'seen', 'reroutesRunning', 'state', 'carriedPending', 'onePerEvent'];

describe('the webhook inbox run', () => {
  it('the fixture sets every field the state schema names', () => {
    expect(Object.keys(FULL).sort()).toEqual(Object.keys(webhookInboxStateSchema().shape).sort());
  });

  it('carries every field of its state to the next run, unchanged', () => {
    const run = new WebhookInboxRun({ options: { routedKept: 10 }, state: structuredClone(FULL) });
    const next = run.carry();
    expect(next.options).toEqual({ routedKept: 10 });
    expect(webhookInboxStateSchema().parse(next.state)).toStrictEqual(FULL);
  });

  it('after taking signals, holds nothing the schema does not name, and nothing outside its state', () => {
    const run = new WebhookInboxRun({});
    run.accept({
      id: 'top-1',
      type: 'nominal_topup',
      receivedAt: '2025-05-14T07:00:00.000Z',
      body: {
        type: 'nominal_topup',
        amount: 1_000,
        account_balance: 50_000,
        currency: 'RUB',
        paymentDate: '2025-05-14',
        account_number: '40702810000000000001',
        doc_id: 'd-1',
        doc_num: 1,
      },
    });
    run.accept({ id: 'odd', type: 'unknown', receivedAt: '2025-05-14T08:00:00.000Z', body: { a: 1 } });
    run.accept({ ...event('late'), lateFor: ['payout-gone'] });
    run.dismiss({ id: 'nothing-there', by: 'operator' });
    const carried = run.carry().state!;
    expect(webhookInboxStateSchema().parse(carried)).toStrictEqual(carried);
    expect(carried.seenIds).toEqual(['top-1', 'odd', 'late']);
    expect(Object.keys(run).sort()).toEqual([...NOT_STATE].sort());
  });

  it('refuses a top-up of the wrong shape before remembering its id, so the state still carries', () => {
    const run = new WebhookInboxRun({});
    const topup = { id: 'top-2', type: 'nominal_topup' as const, receivedAt: '2025-05-14T07:00:00.000Z' };
    try {
      run.accept({ ...topup, body: { amount: 'a lot' } });
      run.accept(topup);
    } catch (err) {
      // Outside a workflow the SDK's logger refuses to log: the refusal itself was reached.
      expect(String(err)).toMatch(/workflow/i);
    }
    const carried = run.carry().state!;
    expect(carried.topups).toEqual([]);
    expect(carried.seenIds).toEqual([]);
    expect(webhookInboxStateSchema().parse(carried)).toStrictEqual(carried);
  });
});
