/**
 * workflows/batch/state.ts: the batch's pure decisions about its carried state. The phase is what the
 * console and `payrun batch status` show, and a cancelled batch's report adds up from the never-started
 * rows counted here, so each rule is pinned.
 */
import { batchCarrySchema, parseBatchWorkflowInput } from '../../workflows/batch/contract';
import {
  batchPhase,
  cancelNeverStarted,
  freshCarry,
  nextRunCarry,
  type BatchCarry,
} from '../../workflows/batch/state';

describe('freshCarry', () => {
  it('starts with nothing dispatched, run 1, and funds already fine only when they are not checked', () => {
    const checked = freshCarry(true);
    expect(checked).toMatchObject({
      nextChunk: 0,
      dispatched: 0,
      dispatchedKopecks: 0,
      inFlight: [],
      runs: 1,
    });
    expect(checked.fundsOk).toBe(false);
    expect(checked.paused).toBe(false);
    expect(freshCarry(false).fundsOk).toBe(true);
  });

  it('gives every batch its own tally', () => {
    const a = freshCarry(true);
    a.tally.counts.succeeded = 1;
    expect(freshCarry(true).tally.counts).toEqual({});
  });
});

describe('batchPhase', () => {
  const base = { done: false, cancelled: false, stage: 'paying' as const, paused: false };

  it('is paying, or paused, once the batch pays', () => {
    expect(batchPhase(base)).toBe('paying');
    expect(batchPhase({ ...base, paused: true })).toBe('paused');
  });

  it('names the wait before paying, a pause notwithstanding', () => {
    expect(batchPhase({ ...base, stage: 'approval', paused: true })).toBe('awaiting_approval');
    expect(batchPhase({ ...base, stage: 'funds', paused: true })).toBe('awaiting_funds');
  });

  it('puts a cancel above any stage, and the end above a cancel', () => {
    expect(batchPhase({ ...base, stage: 'approval', cancelled: true })).toBe('cancelling');
    expect(batchPhase({ ...base, paused: true, cancelled: true })).toBe('cancelling');
    expect(batchPhase({ ...base, cancelled: true, done: true })).toBe('done');
    expect(batchPhase({ ...base, stage: 'funds', done: true })).toBe('done');
  });
});

describe('cancelNeverStarted', () => {
  const carry = (over: Partial<BatchCarry> = {}): BatchCarry => {
    const c = freshCarry(true);
    c.meta = { ...c.meta, rowCount: 5, totalKopecks: 1_000_00, chunkCount: 1 };
    return { ...c, ...over };
  };

  it('cancels the rows never dispatched, with the kopecks never dispatched, as failures', () => {
    const c = carry({ dispatched: 2, dispatchedKopecks: 30_000 });
    c.tally.counts = { succeeded: 2 };
    c.tally.amounts = { succeeded: 30_000 };
    cancelNeverStarted(c);
    expect(c.tally.counts).toEqual({ succeeded: 2, cancelled: 3 });
    expect(c.tally.amounts).toEqual({ succeeded: 30_000, cancelled: 70_000 });
    expect(c.tally.failureCount).toBe(3);
  });

  it('adds to payouts already cancelled', () => {
    const c = carry({ dispatched: 4, dispatchedKopecks: 90_000 });
    c.tally.counts = { cancelled: 4 };
    c.tally.amounts = { cancelled: 90_000 };
    c.tally.failureCount = 4;
    cancelNeverStarted(c);
    expect(c.tally.counts).toEqual({ cancelled: 5 });
    expect(c.tally.amounts).toEqual({ cancelled: 100_000 });
    expect(c.tally.failureCount).toBe(5);
  });

  it('changes nothing when every row was dispatched', () => {
    const c = carry({ dispatched: 5, dispatchedKopecks: 100_000 });
    cancelNeverStarted(c);
    expect(c.tally).toEqual({ counts: {}, amounts: {}, failures: [], failureCount: 0 });
  });
});

describe('the carry over continue-as-new', () => {
  type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
  // Type level: the input's carry schema names every key of BatchCarry, and no other.
  const schemaNamesEveryKey: Same<keyof BatchCarry, keyof ReturnType<typeof batchCarrySchema>['shape']> =
    true;

  /** Every key set: a key nextRunCarry drops, or the input's schema refuses, shows below. */
  const everySet: Required<BatchCarry> = {
    ...freshCarry(true),
    meta: {
      fileName: 'a.csv',
      fileSha256: 'ab',
      rowCount: 3,
      invalidRows: 0,
      totalKopecks: 300,
      chunkCount: 2,
    },
    nextChunk: 1,
    dispatched: 2,
    dispatchedKopecks: 200,
    unflushed: [{ row: 1, reference: 'r-1', amount: 100, state: 'succeeded' }],
    approval: { by: 'anna', at: '2026-11-26T10:00:00.000Z' },
    submittedBy: ['ivan'],
    commands: [],
    fundsOk: true,
    paused: true,
    runs: 2,
  };
  const sorted = (o: object) => Object.keys(o).sort();

  it('names the same keys in BatchCarry and in the input schema', () => {
    expect(schemaNamesEveryKey).toBe(true);
    expect(sorted(everySet)).toEqual(sorted(batchCarrySchema().shape));
  });

  it('carries every key, with the window’s rows and one more run', () => {
    const inFlight = [{ row: 2, reference: 'r-2', amount: 100 }] as unknown as BatchCarry['inFlight'];
    const next = nextRunCarry(everySet, inFlight, []);
    expect(sorted(next)).toEqual(sorted(batchCarrySchema().shape));
    expect(next).toEqual({ ...everySet, inFlight, unflushed: [], runs: 3 });
  });

  it('comes back whole through the next run’s input check', () => {
    const carry = JSON.parse(JSON.stringify(nextRunCarry(everySet, [], [])));
    const parsed = parseBatchWorkflowInput({ batchId: 'batch-0123456789abcdef', carry }, { continued: true });
    expect(parsed).toEqual({ ok: true, value: { batchId: 'batch-0123456789abcdef', carry } });
  });
});
