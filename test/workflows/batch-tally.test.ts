/**
 * workflows/batch/tally.ts: how a batch turns payouts into row outcomes and counts them. The money a
 * report adds up and the rows a person is asked to look at come from here, so every branch is pinned.
 */
import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import type { BatchInFlightRow, BatchRowOutcome, BatchRowState } from '../../workflows/batch/contract';
import type { PayoutState } from '../../workflows/payout/contract';
import {
  addToTally,
  childFailureOutcome,
  emptyTally,
  finishedCount,
  needsAttention,
  outcomeFromLookup,
  outcomeFromStatus,
} from '../../workflows/batch/tally';
import { bankAccount, card, INN, OTHER_CARD, OTHER_INN, payoutStatus, SECRETS } from './fixtures';

const BATCH = 'batch-0123456789abcdef';
const row: BatchInFlightRow = { row: 7, reference: 'r-1', amount: 150_000 };
const rowWithPayee: BatchInFlightRow = { ...row, payee: { taxReference: INN, method: card } };

const outcome = (state: BatchRowState, extra: Partial<BatchRowOutcome> = {}): BatchRowOutcome => ({
  row: 1,
  reference: `r-${state}`,
  amount: 100,
  state,
  ...extra,
});

function expectNoSecrets(o: BatchRowOutcome): void {
  const text = JSON.stringify(o);
  for (const s of SECRETS) expect(text).not.toContain(s);
}

describe('addToTally', () => {
  it('counts rows and kopecks by state', () => {
    const t = emptyTally();
    addToTally(t, outcome('succeeded', { amount: 100 }));
    addToTally(t, outcome('succeeded', { amount: 250 }));
    addToTally(t, outcome('failed', { amount: 40 }));
    expect(t.counts).toEqual({ succeeded: 2, failed: 1 });
    expect(t.amounts).toEqual({ succeeded: 350, failed: 40 });
    expect(finishedCount(t)).toBe(3);
  });

  it.each<BatchRowState>(['succeeded', 'credited', 'returned', 'already_paid'])(
    'does not list %s as a failure',
    (state) => {
      const t = emptyTally();
      addToTally(t, outcome(state));
      expect(t.failures).toEqual([]);
      expect(t.failureCount).toBe(0);
    },
  );

  it.each<BatchRowState>([
    'failed',
    'rejected',
    'expired',
    'cancelled',
    'needs_attention',
    'reference_conflict',
  ])('lists %s as a failure with its code and reason', (state) => {
    const t = emptyTally();
    addToTally(t, outcome(state, { row: 3, errorCode: 'declined_by_issuer_bank', reason: 'declined' }));
    expect(t.failureCount).toBe(1);
    expect(t.failures).toEqual([
      { row: 3, reference: `r-${state}`, state, code: 'declined_by_issuer_bank', reason: 'declined' },
    ]);
  });

  it('leaves code and reason out of a failure that has none', () => {
    const t = emptyTally();
    addToTally(t, outcome('cancelled'));
    expect(t.failures).toEqual([{ row: 1, reference: 'r-cancelled', state: 'cancelled' }]);
  });

  it('keeps the first 50 failures but counts them all', () => {
    const t = emptyTally();
    for (let i = 1; i <= 60; i++) addToTally(t, outcome('failed', { row: i }));
    expect(t.failureCount).toBe(60);
    expect(t.failures).toHaveLength(50);
    expect(t.failures[0]!.row).toBe(1);
    expect(t.failures[49]!.row).toBe(50);
    expect(finishedCount(t)).toBe(60);
  });
});

describe('outcomeFromStatus: a payout of this batch', () => {
  it('copies state and bank ids of a paid payout, with no reason', () => {
    const status = payoutStatus({
      batchId: BATCH,
      bank: { sessionId: 'ses-1', payoutId: 'pay-1', receiptLink: 'https://receipt.example/1' },
    });
    expect(outcomeFromStatus(row, status, BATCH)).toEqual({
      row: 7,
      reference: 'r-1',
      amount: 150_000,
      state: 'succeeded',
      sessionId: 'ses-1',
      payoutId: 'pay-1',
      receiptLink: 'https://receipt.example/1',
    });
  });

  it('carries the failure code and reason of a payout that failed', () => {
    const status = payoutStatus({
      batchId: BATCH,
      state: 'failed',
      failure: { code: 'declined_by_issuer_bank', reason: 'the issuer declined' },
    });
    expect(outcomeFromStatus(row, status, BATCH)).toEqual({
      ...row,
      state: 'failed',
      errorCode: 'declined_by_issuer_bank',
      reason: 'the issuer declined',
    });
  });

  it.each<PayoutState>(['credited', 'returned', 'rejected', 'expired', 'cancelled', 'needs_attention'])(
    'keeps the final state %s',
    (state) => {
      expect(outcomeFromStatus(row, payoutStatus({ batchId: BATCH, state }), BATCH).state).toBe(state);
    },
  );

  it.each<PayoutState>([
    'reconciling',
    'checking_taxpayer',
    'creating_session',
    'awaiting_ready_to_confirm',
    'awaiting_approval',
    'confirming',
    'awaiting_result',
  ])('reports the unfinished state %s as needs_attention', (state) => {
    expect(outcomeFromStatus(row, payoutStatus({ batchId: BATCH, state }), BATCH).state).toBe(
      'needs_attention',
    );
  });
});

describe('outcomeFromStatus: a payout of another batch or of no batch', () => {
  it('is already_paid when it paid the same payee the same amount', () => {
    const status = payoutStatus({ batchId: 'batch-other', bank: { sessionId: 'ses-9' } });
    const o = outcomeFromStatus(rowWithPayee, status, BATCH);
    expect(o).toEqual({
      row: 7,
      reference: 'r-1',
      amount: 150_000,
      state: 'already_paid',
      sessionId: 'ses-9',
      reason: 'already paid by batch batch-other (state succeeded); not paid again',
    });
  });

  it('says when the earlier payout was started outside any batch', () => {
    const o = outcomeFromStatus(rowWithPayee, payoutStatus({ state: 'credited' }), BATCH);
    expect(o.state).toBe('already_paid');
    expect(o.reason).toBe(
      'already paid by a payout started outside any batch (state credited); not paid again',
    );
  });

  it('is already_paid for a returned payout too: its money moved', () => {
    expect(outcomeFromStatus(rowWithPayee, payoutStatus({ state: 'returned' }), BATCH).state).toBe(
      'already_paid',
    );
  });

  it('is reference_conflict naming the amount when the row asks for another amount', () => {
    const o = outcomeFromStatus(
      { ...rowWithPayee, amount: 99_00 },
      payoutStatus({ batchId: 'batch-other' }),
      BATCH,
    );
    expect(o).toEqual({
      row: 7,
      reference: 'r-1',
      amount: 99_00,
      state: 'reference_conflict',
      errorCode: 'reference_conflict',
      reason:
        'reference already paid by batch batch-other to another payee or amount (differs: amount (150000 vs 9900 kopecks)); nothing paid — give this row its own reference',
    });
  });

  it('is reference_conflict naming the fields, never their values, when the payee differs', () => {
    const other: BatchInFlightRow = {
      ...row,
      payee: { taxReference: OTHER_INN, method: { type: 'card', cardNumber: OTHER_CARD } },
    };
    const o = outcomeFromStatus(
      other,
      payoutStatus({ bank: { sessionId: 'ses-9', payoutId: 'pay-9' } }),
      BATCH,
    );
    expect(o.state).toBe('reference_conflict');
    expect(o.errorCode).toBe('reference_conflict');
    expect(o.reason).toContain('differs: recipient tax number (INN), card number)');
    // The conflict row was not paid by this reference's payout: it must not show that payout's ids.
    expect(o.sessionId).toBeUndefined();
    expect(o.payoutId).toBeUndefined();
    expectNoSecrets(o);
  });

  it('is reference_conflict when the payment method differs', () => {
    const o = outcomeFromStatus(
      { ...row, payee: { taxReference: INN, method: bankAccount } },
      payoutStatus(),
      BATCH,
    );
    expect(o.state).toBe('reference_conflict');
    expect(o.reason).toContain('payment method (card vs bank_account)');
    expectNoSecrets(o);
  });

  it('is already_paid without comparing when the row does not keep its payee', () => {
    const o = outcomeFromStatus(row, payoutStatus({ amount: 1 }), BATCH);
    expect(o.state).toBe('already_paid');
  });

  it('keeps the state of an earlier payout that moved no money, saying how it ended', () => {
    const status = payoutStatus({
      batchId: 'batch-other',
      state: 'failed',
      failure: { code: 'declined_by_issuer_bank', reason: 'the issuer declined' },
    });
    expect(outcomeFromStatus({ ...rowWithPayee, amount: 1 }, status, BATCH)).toEqual({
      row: 7,
      reference: 'r-1',
      amount: 1,
      state: 'failed',
      errorCode: 'declined_by_issuer_bank',
      reason: 'the earlier payout of this reference (batch batch-other) ended failed: the issuer declined',
    });
  });

  it('says how an earlier unpaid payout ended when it carries no failure', () => {
    const o = outcomeFromStatus(row, payoutStatus({ state: 'cancelled' }), BATCH);
    expect(o.state).toBe('cancelled');
    expect(o.reason).toBe(
      'the earlier payout of this reference (a payout started outside any batch) ended cancelled',
    );
  });
});

describe('needsAttention and outcomeFromLookup', () => {
  it('needsAttention names the close status as payout_<status>', () => {
    expect(needsAttention(row, 'terminated', 'why')).toEqual({
      ...row,
      state: 'needs_attention',
      errorCode: 'payout_terminated',
      reason: 'why',
    });
  });

  it('has no outcome for a reference with no payout or one still running', () => {
    expect(outcomeFromLookup(row, { kind: 'none' }, BATCH)).toBeUndefined();
    expect(outcomeFromLookup(row, { kind: 'running' }, BATCH)).toBeUndefined();
  });

  it('reads a paid or not paid lookup as its status', () => {
    const paid = payoutStatus({ batchId: BATCH, bank: { sessionId: 'ses-1' } });
    expect(outcomeFromLookup(row, { kind: 'paid', status: paid }, BATCH)).toEqual(
      outcomeFromStatus(row, paid, BATCH),
    );
    const notPaid = payoutStatus({ state: 'expired' });
    expect(outcomeFromLookup(row, { kind: 'not_paid', status: notPaid }, BATCH)?.state).toBe('expired');
  });

  it('reads needs_attention with its close status, reason and the session it knows', () => {
    const o = outcomeFromLookup(
      row,
      {
        kind: 'needs_attention',
        closeStatus: 'timed_out',
        reason: 'ran out of time',
        status: payoutStatus({ state: 'confirming', bank: { sessionId: 'ses-5' } }),
      },
      BATCH,
    );
    expect(o).toEqual({
      ...row,
      state: 'needs_attention',
      errorCode: 'payout_timed_out',
      reason: 'ran out of time',
      sessionId: 'ses-5',
    });
    const bare = outcomeFromLookup(
      row,
      { kind: 'needs_attention', closeStatus: 'failed', reason: 'r' },
      BATCH,
    );
    expect(bare).toEqual({ ...row, state: 'needs_attention', errorCode: 'payout_failed', reason: 'r' });
  });
});

describe('childFailureOutcome', () => {
  const child = (cause?: Error) =>
    new ChildWorkflowFailure(
      'default',
      { workflowId: 'payout-r-1', runId: 'run-1' },
      'payoutWorkflow',
      RetryState.NON_RETRYABLE_FAILURE,
      cause,
    );
  const ending = (type: string, status: unknown) =>
    ApplicationFailure.create({ message: type, type, nonRetryable: true, details: [status] });

  it('rethrows anything that is not a child workflow failure', () => {
    const err = new Error('boom');
    expect(() => childFailureOutcome(row, err, BATCH)).toThrow(err);
    const app = ending('payout_failed', payoutStatus({ state: 'failed' }));
    expect(() => childFailureOutcome(row, app, BATCH)).toThrow(app);
  });

  it.each(['failed', 'rejected', 'expired', 'cancelled'] as const)(
    'reads the payout ending payout_%s through its status',
    (state) => {
      const status = payoutStatus({
        batchId: BATCH,
        state,
        failure: { code: `code_${state}`, reason: `reason ${state}` },
      });
      expect(childFailureOutcome(row, child(ending(`payout_${state}`, status)), BATCH)).toEqual({
        ...row,
        state,
        errorCode: `code_${state}`,
        reason: `reason ${state}`,
      });
    },
  );

  it('reads payout_needs_attention through its status', () => {
    const status = payoutStatus({
      batchId: BATCH,
      state: 'needs_attention',
      bank: { sessionId: 'ses-3' },
      failure: { code: 'confirm_outcome_unknown', reason: 'could not tell' },
    });
    expect(childFailureOutcome(row, child(ending('payout_needs_attention', status)), BATCH)).toEqual({
      ...row,
      state: 'needs_attention',
      sessionId: 'ses-3',
      errorCode: 'confirm_outcome_unknown',
      reason: 'could not tell',
    });
  });

  it('reads a refused duplicate (payout_already_paid) as already_paid by the earlier run', () => {
    const earlier = payoutStatus({ batchId: 'batch-other' });
    const o = childFailureOutcome(rowWithPayee, child(ending('payout_already_paid', earlier)), BATCH);
    expect(o.state).toBe('already_paid');
    expect(o.reason).toContain('batch batch-other');
  });

  it('reads a refused conflicting reference (reference_conflict) as reference_conflict', () => {
    const earlier = payoutStatus({ batchId: 'batch-other', amount: 1 });
    const o = childFailureOutcome(rowWithPayee, child(ending('reference_conflict', earlier)), BATCH);
    expect(o.state).toBe('reference_conflict');
    expect(o.reason).toContain('amount (1 vs 150000 kopecks)');
  });

  const reconcileHint = (how: string) =>
    `the payout workflow ended ${how} without an outcome; run \`payrun payout reconcile r-1\` to ask the bank`;

  it.each([
    ['terminated', 'terminated', new TerminatedFailure('terminated by an operator')],
    ['timed_out', 'timed out', new TimeoutFailure('run timeout', undefined, TimeoutType.START_TO_CLOSE)],
    ['cancelled', 'cancelled', new CancelledFailure('cancelled')],
    [
      'failed',
      'threw a bug',
      ApplicationFailure.create({ message: 'a bug', type: 'TypeError', nonRetryable: true }),
    ],
    ['failed', 'failed with a type not ours', ending('payout_something_new', payoutStatus())],
    [
      'failed',
      'failed with our type but no status',
      ApplicationFailure.create({ message: 'no status', type: 'payout_failed', nonRetryable: true }),
    ],
    ['failed', 'failed with no cause', undefined],
  ])('asks a person to reconcile a child that ended %s (%s)', (how, _label, cause) => {
    expect(childFailureOutcome(row, child(cause), BATCH)).toEqual({
      ...row,
      state: 'needs_attention',
      errorCode: `payout_${how}`,
      reason: reconcileHint(how),
    });
  });
});
