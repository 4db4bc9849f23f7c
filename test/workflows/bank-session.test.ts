/**
 * workflows/shared/bank-session.ts: what a bank session means to a payout. Webhooks and polls both go through
 * it, so a wrong phase here would confirm, fail or finish a payout on the wrong evidence.
 */
import {
  firstPayout,
  laterPhase,
  readPayoutSession,
  receiptOf,
  refundsOf,
  type SessionPhase,
} from '../../workflows/shared/bank-session';
import { session } from './fixtures';

// The spec's session states (`error` is not final: support resolves it) and payout states; '-' = no payout yet.
const SESSION_STATES = ['created', 'in_progress', 'accepted', 'cancelled', 'error'] as const;
const PAYOUT_STATES = ['-', 'in_progress', 'pending', 'succeeded', 'failed'] as const;

// Written out rather than derived: each cell is a decision about money.
const EXPECTED: Record<
  (typeof SESSION_STATES)[number],
  Record<(typeof PAYOUT_STATES)[number], SessionPhase>
> = {
  created: {
    '-': 'processing',
    in_progress: 'processing',
    pending: 'ready_to_confirm',
    succeeded: 'processing',
    failed: 'failed',
  },
  in_progress: {
    '-': 'processing',
    in_progress: 'processing',
    pending: 'ready_to_confirm',
    // The payout is done but the session not yet accepted: success is only believed once both say so.
    succeeded: 'processing',
    failed: 'failed',
  },
  accepted: {
    '-': 'processing',
    in_progress: 'processing',
    pending: 'ready_to_confirm',
    succeeded: 'succeeded',
    failed: 'failed',
  },
  cancelled: {
    '-': 'failed',
    in_progress: 'failed',
    pending: 'failed',
    succeeded: 'failed',
    failed: 'failed',
  },
  error: {
    '-': 'processing',
    in_progress: 'processing',
    pending: 'ready_to_confirm',
    succeeded: 'processing',
    failed: 'failed',
  },
};

const cases = SESSION_STATES.flatMap((s) => PAYOUT_STATES.map((p) => [s, p, EXPECTED[s][p]] as const));

describe('readPayoutSession', () => {
  it.each(cases)('session %s with payout %s reads as %s', (sessionStatus, payoutStatus, phase) => {
    const s = session(sessionStatus, payoutStatus === '-' ? undefined : payoutStatus);
    const reading = readPayoutSession(s);
    expect(reading.phase).toBe(phase);
    expect(reading.payout).toBe(s.payments?.[0]);
  });

  it('reads next_action confirm as ready_to_confirm even before the payout shows pending', () => {
    expect(readPayoutSession(session('in_progress', undefined, { next_action: 'confirm' })).phase).toBe(
      'ready_to_confirm',
    );
    expect(readPayoutSession(session('in_progress', 'in_progress', { next_action: 'confirm' })).phase).toBe(
      'ready_to_confirm',
    );
  });

  it('reads a cancelled or failed session as failed even when next_action still says confirm', () => {
    expect(readPayoutSession(session('cancelled', 'pending', { next_action: 'confirm' })).phase).toBe(
      'failed',
    );
    expect(readPayoutSession(session('in_progress', 'failed', { next_action: 'confirm' })).phase).toBe(
      'failed',
    );
  });

  it("takes a failure's code and description from the payout first", () => {
    const s = session(
      'in_progress',
      'failed',
      { error: { code: 'session_level', description: 'session words' } },
      { error: { code: 'declined_by_issuer_bank', description: 'the issuer declined' } },
    );
    expect(readPayoutSession(s)).toEqual({
      phase: 'failed',
      payout: s.payments![0],
      errorCode: 'declined_by_issuer_bank',
      errorDescription: 'the issuer declined',
    });
  });

  it("falls back to the session's error, then to unknown_error", () => {
    const cancelled = session('cancelled', 'pending', {
      error: { code: 'confirm_timeout', description: 'late' },
    });
    expect(readPayoutSession(cancelled)).toMatchObject({
      phase: 'failed',
      errorCode: 'confirm_timeout',
      errorDescription: 'late',
    });
    const bare = readPayoutSession(session('cancelled'));
    expect(bare).toEqual({
      phase: 'failed',
      payout: undefined,
      errorCode: 'unknown_error',
      errorDescription: undefined,
    });
  });

  it('carries no error on a phase that is not failed', () => {
    const s = session('accepted', 'succeeded', { error: { code: 'stale' } });
    expect(readPayoutSession(s)).toEqual({ phase: 'succeeded', payout: s.payments![0] });
  });

  it('reads the first payout of the session', () => {
    const s = session('accepted', undefined, {
      payments: [
        { id: 'pay-1', status: 'succeeded' },
        { id: 'pay-2', status: 'failed' },
      ],
    });
    expect(firstPayout(s)?.id).toBe('pay-1');
    expect(readPayoutSession(s).phase).toBe('succeeded');
  });
});

describe('laterPhase', () => {
  const RANK: Record<SessionPhase, number> = { processing: 0, ready_to_confirm: 1, succeeded: 2, failed: 2 };
  const phases = Object.keys(RANK) as SessionPhase[];
  const pairs = phases.flatMap((current) => phases.map((next) => [current, next] as const));

  it.each(pairs)('from %s, a reading of %s never moves the payout back', (current, next) => {
    const result = laterPhase(current, next);
    if (RANK[next] > RANK[current]) expect(result).toBe(next);
    else if (RANK[next] < RANK[current]) expect(result).toBe(current);
    // Between the two final phases no order is promised here; only that the rank never drops.
    else expect(RANK[result]).toBe(RANK[current]);
  });

  it('moves forward step by step and holds a final phase against late earlier readings', () => {
    let p: SessionPhase = 'processing';
    for (const next of [
      'ready_to_confirm',
      'processing',
      'succeeded',
      'ready_to_confirm',
      'processing',
    ] as const)
      p = laterPhase(p, next);
    expect(p).toBe('succeeded');
    expect(laterPhase('failed', 'ready_to_confirm')).toBe('failed');
    expect(laterPhase('ready_to_confirm', 'processing')).toBe('ready_to_confirm');
  });
});

describe('receiptOf', () => {
  it('reads the fiscal receipt of a self-employed payout', () => {
    const s = session(
      'accepted',
      'succeeded',
      {},
      {
        fiscalization_details: {
          professional_income_taxpayer: { receipt: { id: 'rcpt-1', link: 'https://receipt.example/1' } },
        },
      },
    );
    expect(receiptOf(s.payments![0])).toEqual({ id: 'rcpt-1', link: 'https://receipt.example/1' });
  });

  it('has neither id nor link without a receipt or a payout', () => {
    expect(receiptOf(undefined)).toEqual({ id: undefined, link: undefined });
    expect(receiptOf(session('accepted', 'succeeded').payments![0])).toEqual({
      id: undefined,
      link: undefined,
    });
    const partial = session(
      'accepted',
      'succeeded',
      {},
      { fiscalization_details: { professional_income_taxpayer: {} } },
    );
    expect(receiptOf(partial.payments![0])).toEqual({ id: undefined, link: undefined });
  });
});

describe('refundsOf', () => {
  it('is empty for a session without refunds', () => {
    expect(refundsOf(session('accepted', 'succeeded'))).toEqual([]);
    expect(refundsOf(session('created'))).toEqual([]);
  });

  it("collects refunds of acquiring payments and of returned payouts, payments' first", () => {
    const s = session('accepted', undefined, {
      acquiring_payments: [
        { id: 'pm-1', status: 'succeeded', refunds: [{ id: 'rf-1', status: 'accepted' }] },
        { id: 'pm-2', status: 'succeeded' },
        { id: 'pm-3', status: 'succeeded', refunds: [{ id: 'rf-2', status: 'in_progress' }] },
      ],
      payments: [{ id: 'pay-1', status: 'succeeded', refunds: [{ id: 'rf-3', status: 'accepted' }] }],
    });
    expect(refundsOf(s).map((r) => r.id)).toEqual(['rf-1', 'rf-2', 'rf-3']);
  });
});

describe('laterPhase keeps a final phase final', () => {
  it.each([
    ['succeeded', 'failed'],
    ['failed', 'succeeded'],
    ['succeeded', 'processing'],
    ['failed', 'ready_to_confirm'],
  ] as const)('%s stays %s after a reading of %s', (current, next) => {
    expect(laterPhase(current, next)).toBe(current);
  });
});
