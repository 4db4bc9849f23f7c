/**
 * workflows/payout/tracker.ts built outside a workflow, with a fake environment: what it tells Temporal's
 * search and what bank evidence may move a payout. Events are only nudges; sessions move phases forward.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { PaymentSession } from '../../src/bank/types/session';
import type { BankEventSignal } from '../../workflows/shared/bank-event-contract';
import type { PayoutInput } from '../../workflows/payout/contract';
import { PayoutTracker, type TrackerEnvironment } from '../../workflows/payout/tracker';
import {
  AMOUNT_KOPECKS,
  BATCH_ID,
  PAYOUT_REF,
  SESSION_ID,
  STATE,
} from '../../workflows/shared/search-attributes';
import { INN, card, payoutRequest, session } from './fixtures';

/** Each call of now() is one second later, so every timestamp and note shows when it was taken. */
function fakeEnv() {
  const upserts: Record<string, unknown>[] = [];
  let tick = 0;
  const env: TrackerEnvironment = {
    upsert: (attrs: SearchAttributeUpdatePair[]) =>
      upserts.push(Object.fromEntries(attrs.map((a) => [a.key.name, a.value]))),
    now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)).toISOString(),
  };
  return { env, upserts };
}

function tracker(input: Partial<PayoutInput> = {}) {
  const { env, upserts } = fakeEnv();
  const t = new PayoutTracker({ request: payoutRequest(), ...input }, env);
  return { t, upserts };
}

const event = (type: BankEventSignal['type'], extra: Partial<BankEventSignal> = {}): BankEventSignal => ({
  id: `evt-${type}`,
  type,
  receivedAt: '2026-01-01T00:10:00.000Z',
  ...extra,
});

const succeeded = (): PaymentSession =>
  session(
    'accepted',
    'succeeded',
    {},
    {
      transaction_info: { rrn: 'rrn-1', auth_code: 'auth-1' },
      fiscalization_details: {
        professional_income_taxpayer: { receipt: { id: 'rcpt-1', link: 'https://receipt.example/1' } },
      },
    },
  );

describe('PayoutTracker construction', () => {
  it('writes nothing to Temporal until asked, and starts where the request says', () => {
    const { t, upserts } = tracker({ batchId: 'batch-1', options: { requireApproval: true } });
    expect(upserts).toEqual([]);
    expect(t.status).toEqual({
      reference: 'r-1',
      state: 'checking_taxpayer',
      amount: 150_000,
      currency: 'rub',
      batchId: 'batch-1',
      payee: { taxReference: INN, method: card },
      bank: {},
      approval: { required: true },
      timestamps: { started: '2026-01-01T00:00:00.000Z' },
      notes: [],
      changes: [['checking_taxpayer', '2026-01-01T00:00:00.000Z']],
    });
    expect(t.phase).toBe('processing');
    expect(t.nudged).toBe(false);
  });

  it('skips the taxpayer check for a plain payout and carries no batch when started alone', () => {
    const { t } = tracker({ request: payoutRequest({ selfEmployed: false }) });
    expect(t.status.state).toBe('creating_session');
    expect('batchId' in t.status).toBe(false);
    expect(t.status.approval).toEqual({ required: false });
  });
});

describe('PayoutTracker.publish', () => {
  it('writes only the attributes that changed since the last call', () => {
    const { t, upserts } = tracker({ batchId: 'batch-1' });
    t.publish();
    expect(upserts).toEqual([
      { [PAYOUT_REF.name]: 'r-1', [AMOUNT_KOPECKS.name]: 150_000, [BATCH_ID.name]: 'batch-1' },
    ]);
    t.publish();
    expect(upserts).toHaveLength(1);
    t.applySession(session('created'), 'session created');
    t.publish();
    expect(upserts[1]).toEqual({ [SESSION_ID.name]: 'ses-1' });
    t.publish();
    expect(upserts).toHaveLength(2);
  });

  it('leaves out attributes with no value (no batch, no session)', () => {
    const { t, upserts } = tracker();
    t.publish();
    expect(upserts).toEqual([{ [PAYOUT_REF.name]: 'r-1', [AMOUNT_KOPECKS.name]: 150_000 }]);
  });

  it('shows the state only after publish(true), and keeps showing it afterwards', () => {
    const { t, upserts } = tracker();
    t.setState('awaiting_ready_to_confirm');
    t.publish();
    expect(upserts.some((u) => STATE.name in u)).toBe(false);
    t.setState('awaiting_approval');
    t.publish(true);
    expect(upserts[1]).toEqual({ [STATE.name]: 'awaiting_approval' });
    t.setState('confirming');
    t.publish();
    expect(upserts[2]).toEqual({ [STATE.name]: 'confirming' });
    t.publish(false);
    expect(upserts).toHaveLength(3);
  });
});

describe('PayoutTracker state, notes and failure', () => {
  it('stamps the step when asked and fail() records the failure as finished', () => {
    const { t } = tracker();
    t.setState('confirming', 'confirmed');
    expect(t.status.timestamps.confirmed).toBe('2026-01-01T00:00:01.000Z');
    const status = t.fail('failed', { code: 'declined_by_issuer_bank', reason: 'declined' });
    expect(status).toBe(t.status);
    // Each state entered once, in order, at its time: the events' sequence numbers (docs/events.md).
    expect(status.changes!.map(([s]) => s)).toEqual(['checking_taxpayer', 'confirming', 'failed']);
    t.setState('failed');
    expect(status.changes).toHaveLength(3);
    expect(status.state).toBe('failed');
    expect(status.failure).toEqual({ code: 'declined_by_issuer_bank', reason: 'declined' });
    expect(status.timestamps.finished).toBe('2026-01-01T00:00:02.000Z');
  });

  it('keeps the newest 50 notes, each with its time, the first saying how many older ones were dropped', () => {
    const { t } = tracker();
    for (let i = 1; i <= 50; i++) t.note(`note ${i}`);
    expect(t.status.notes).toHaveLength(50);
    expect(t.status.notes[0]).toMatch(/Z note 1$/);
    for (let i = 51; i <= 10_000; i++) t.note(`note ${i}`);
    expect(t.status.notes).toHaveLength(50);
    expect(t.status.notes[0]).toBe('9951 older notes dropped; the newest are kept');
    expect(t.status.notes[1]).toMatch(/Z note 9952$/);
    expect(t.status.notes[49]).toMatch(/Z note 10000$/);
  });

  it('a flood of forged events keeps the notes bounded and still takes a resent genuine event once', () => {
    const { t } = tracker();
    const event = (id: string) => ({
      id,
      type: 'payment_finished' as const,
      receivedAt: '2026-01-01T00:00:00Z',
    });
    for (let i = 0; i < 10_000; i++) t.applyEvent(event(`forged-${i}`));
    expect(t.status.notes).toHaveLength(50);
    t.nudged = false;
    t.applyEvent(event('genuine'));
    expect(t.nudged).toBe(true);
    t.nudged = false;
    t.applyEvent(event('genuine')); // resent by the bank
    expect(t.nudged).toBe(false);
  });
});

describe('PayoutTracker.applySession', () => {
  it('takes the session id from the first session and the bank ids from its payout', () => {
    const { t } = tracker();
    t.applySession(succeeded(), 'session/status');
    expect(t.sessionId).toBe('ses-1');
    expect(t.status.bank).toEqual({
      sessionId: 'ses-1',
      payoutId: 'pay-1',
      receiptId: 'rcpt-1',
      receiptLink: 'https://receipt.example/1',
      rrn: 'rrn-1',
      authCode: 'auth-1',
    });
    expect(t.phase).toBe('succeeded');
    // The tracker reads evidence; deciding the payout's state is the workflow's business.
    expect(t.status.state).toBe('checking_taxpayer');
  });

  it('moves phases forward only', () => {
    const { t } = tracker();
    t.applySession(session('created'), 'create');
    expect(t.phase).toBe('processing');
    t.applySession(session('in_progress', 'pending'), 'poll');
    expect(t.phase).toBe('ready_to_confirm');
    t.applySession(session('in_progress', 'in_progress'), 'stale poll');
    expect(t.phase).toBe('ready_to_confirm');
    t.applySession(succeeded(), 'poll');
    expect(t.phase).toBe('succeeded');
    t.applySession(session('in_progress', 'pending'), 'stale poll');
    expect(t.phase).toBe('succeeded');
    expect(t.status.failure).toBeUndefined();
  });

  it('records the failure the bank gave when the session fails', () => {
    const { t } = tracker();
    t.applySession(
      session(
        'in_progress',
        'failed',
        {},
        { error: { code: 'declined_by_issuer_bank', description: 'declined' } },
      ),
      'poll',
    );
    expect(t.phase).toBe('failed');
    expect(t.status.failure).toEqual({ code: 'declined_by_issuer_bank', reason: 'declined' });
  });

  it('words a failure the bank did not describe', () => {
    const { t } = tracker();
    t.applySession(session('cancelled'), 'poll');
    expect(t.status.failure).toEqual({
      code: 'unknown_error',
      reason: 'the bank reported the payout failed',
    });
  });

  it('does not rewrite a failure already read when the failed session is read again', () => {
    const { t } = tracker();
    t.applySession(session('in_progress', 'failed', {}, { error: { code: 'first' } }), 'poll');
    t.applySession(session('in_progress', 'failed', {}, { error: { code: 'second' } }), 'poll');
    expect(t.status.failure?.code).toBe('first');
  });

  it('ignores a session of another id, with a note, and changes nothing else', () => {
    const { t } = tracker();
    t.applySession(session('in_progress', 'pending'), 'create');
    const before = JSON.stringify(t.status.bank);
    t.applySession({ ...succeeded(), id: 'ses-2' }, 'session/status');
    expect(t.sessionId).toBe('ses-1');
    expect(t.phase).toBe('ready_to_confirm');
    expect(JSON.stringify(t.status.bank)).toBe(before);
    expect(t.status.notes).toEqual([
      '2026-01-01T00:00:01.000Z ignored session/status for another session ses-2',
    ]);
  });

  it('marks a paid payout as returned once, when its session shows refunds', () => {
    const { t } = tracker();
    t.applySession(succeeded(), 'poll');
    expect(t.returnedAt).toBeUndefined();
    const refunded = succeeded();
    refunded.payments![0]!.refunds = [{ id: 'rf-1', status: 'accepted' }];
    t.applySession(refunded, 'poll');
    expect(t.returnedAt).toBe('2026-01-01T00:00:01.000Z');
    t.applySession(refunded, 'poll');
    expect(t.returnedAt).toBe('2026-01-01T00:00:01.000Z');
  });

  it('does not take refunds of a session that has not succeeded as a return', () => {
    const { t } = tracker();
    const pending = session('in_progress', 'pending', {}, { refunds: [{ id: 'rf-1', status: 'accepted' }] });
    t.applySession(pending, 'poll');
    expect(t.returnedAt).toBeUndefined();
  });
});

describe('PayoutTracker.applyEvent', () => {
  // Events carry sessions the tracker must not believe: anyone who can reach Temporal can send one.
  const forgedSuccess = () => ({ ...succeeded(), payments: [{ id: 'pay-forged', status: 'succeeded' }] });

  it.each(['ready_to_confirm', 'payment_finished', 'payment_refunded'] as const)(
    '%s only nudges the workflow to read session/status',
    (type) => {
      const { t } = tracker();
      t.applySession(session('in_progress'), 'create');
      const before = JSON.stringify({ status: t.status, phase: t.phase, returnedAt: t.returnedAt });
      t.applyEvent(event(type, { sessionId: 'ses-1', session: forgedSuccess() }));
      expect(t.nudged).toBe(true);
      expect(t.phase).toBe('processing');
      expect(t.returnedAt).toBeUndefined();
      expect(t.status.notes).toEqual([
        `2026-01-01T00:00:01.000Z ${type} event received; reading session/status`,
      ]);
      t.status.notes.length = 0;
      expect(JSON.stringify({ status: t.status, phase: t.phase, returnedAt: t.returnedAt })).toBe(before);
    },
  );

  it.each(['ready_to_confirm', 'payment_finished', 'payment_refunded'] as const)(
    'a signed %s waits to have its signature checked; it moves nothing by itself',
    (type) => {
      const { t } = tracker();
      t.applySession(session('in_progress'), 'create');
      const signed = { body: 'e30=', signature: 'c2ln' };
      t.applyEvent(event(type, { sessionId: 'ses-1', session: forgedSuccess(), signed }));
      expect(t.nudged).toBe(false);
      expect(t.phase).toBe('processing');
      expect(t.status.notes).toEqual([
        `2026-01-01T00:00:01.000Z ${type} event received; checking the bank's signature`,
      ]);
      expect(t.takeUnchecked()).toEqual([signed]);
      expect(t.takeUnchecked()).toEqual([]);
    },
  );

  it('holds at most 8 signed webhooks unchecked; more only prompt a read of session/status', () => {
    const { t } = tracker();
    const signed = { body: 'e30=', signature: 'c2ln' };
    for (let i = 0; i < 8; i++) t.applyEvent(event('payment_finished', { id: `evt-${i}`, signed }));
    expect(t.nudged).toBe(false);
    t.applyEvent(event('payment_finished', { id: 'evt-9', signed }));
    expect(t.nudged).toBe(true);
    expect(t.takeUnchecked()).toHaveLength(8);
  });

  it('believes checked sessions; a refusal beside them still prompts a read of session/status', () => {
    const { t } = tracker();
    t.applySession(session('in_progress'), 'create');
    t.applyChecked({ sessions: [succeeded()], refused: [] });
    expect(t.phase).toBe('succeeded');
    expect(t.nudged).toBe(false);
    // A genuine return the worker could not verify (a key rotated at the bank), beside an old believed webhook.
    t.applyChecked({ sessions: [succeeded()], refused: ["not the bank's webhook (bad_signature)"] });
    expect(t.nudged).toBe(true);
    expect(t.status.notes.at(-1)).toMatch(
      /did not believe a bank event: not the bank's webhook \(bad_signature\)$/,
    );
    t.nudged = false;
    t.applyChecked({ sessions: [], refused: ['a webhook about another session ses-2'] });
    expect(t.nudged).toBe(true);
  });

  it('applies an event once, however often it arrives', () => {
    const { t } = tracker();
    t.applyEvent(event('payment_finished'));
    t.nudged = false; // the workflow read session/status
    t.applyEvent(event('payment_finished'));
    expect(t.nudged).toBe(false);
    expect(t.status.notes).toHaveLength(1);
    t.applyEvent(event('payment_finished', { id: 'evt-resent-with-new-body' }));
    expect(t.nudged).toBe(true);
  });

  it('ignores an event for another session, with a note', () => {
    const { t } = tracker();
    t.applySession(session('in_progress'), 'create');
    t.applyEvent(
      event('payment_finished', { sessionId: 'ses-2', session: { ...forgedSuccess(), id: 'ses-2' } }),
    );
    expect(t.nudged).toBe(false);
    expect(t.status.notes).toEqual([
      '2026-01-01T00:00:01.000Z ignored payment_finished for another session ses-2',
    ]);
  });

  it('takes an event before the session id is known (the create answer may be the one that was lost)', () => {
    const { t } = tracker();
    t.applyEvent(event('ready_to_confirm', { sessionId: 'ses-7' }));
    expect(t.nudged).toBe(true);
    expect(t.sessionId).toBeUndefined();
  });

  it('records the first confirmation_payout and moves nothing', () => {
    const { t } = tracker();
    t.applySession(succeeded(), 'poll');
    const confirmation = { event: 'credited', eventDate: '2026-01-02T10:00:00Z' };
    t.applyEvent(event('confirmation_payout', { id: 'evt-c1', sessionId: 'ses-1', confirmation }));
    t.applyEvent(
      event('confirmation_payout', {
        id: 'evt-c2',
        sessionId: 'ses-1',
        confirmation: { event: 'credited', eventDate: '2026-01-03T10:00:00Z' },
      }),
    );
    expect(t.credited).toEqual(confirmation);
    expect(t.nudged).toBe(false);
    expect(t.status.notes).toEqual([]);
    expect(t.status.state).toBe('checking_taxpayer');
  });

  it('ignores a confirmation_payout without its fields', () => {
    const { t } = tracker();
    t.applyEvent(event('confirmation_payout'));
    expect(t.credited).toBeUndefined();
  });

  it.each(['action_required', 'ready_to_capture', 'nominal_topup', 'unknown'] as const)(
    'notes and ignores %s',
    (type) => {
      const { t } = tracker();
      t.applyEvent(event(type));
      expect(t.nudged).toBe(false);
      expect(t.status.notes).toEqual([`2026-01-01T00:00:01.000Z ignored ${type} event`]);
    },
  );
});

describe('PayoutTracker carried into its own continue-as-new', () => {
  it('goes on where it was: status, phase, remembered events and published attributes', () => {
    const { t, upserts } = tracker({ batchId: 'batch-0123456789abcdef' });
    t.applySession(session('accepted', 'pending'), 'session created');
    t.publish();
    t.applyEvent(event('ready_to_confirm'));
    t.note('a note to keep');
    // Through JSON, as Temporal carries it.
    const snapshot = JSON.parse(JSON.stringify(t.snapshot())) as ReturnType<PayoutTracker['snapshot']>;
    const { env, upserts: later } = fakeEnv();
    const next = PayoutTracker.restore(
      { request: payoutRequest(), batchId: 'batch-0123456789abcdef' },
      snapshot,
      env,
    );

    expect(next.status).toEqual(t.status);
    expect(next.phase).toBe('ready_to_confirm');
    expect(next.nudged).toBe(t.nudged);
    // A webhook it had already taken is not taken again, and nothing it had published is written again.
    const notes = next.status.notes.length;
    next.applyEvent(event('ready_to_confirm'));
    expect(next.status.notes).toHaveLength(notes);
    next.publish();
    expect(later).toEqual([]);
    expect(upserts).toHaveLength(1);
  });
});
