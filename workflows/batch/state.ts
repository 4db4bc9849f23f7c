import { emptyTally } from './tally';
import {
  type BatchCommandRecord,
  type BatchInFlightRow,
  type BatchMetaView,
  type BatchPhase,
  type BatchRowOutcome,
  type BatchTally,
} from './contract';

// What the batch carries over continue-as-new, and the pure decisions about it: private to the batch
// workflow's files (workflows/batch/).

/** What the batch carries over continue-as-new: counters and the cursor, never the rows' results. */
export interface BatchCarry {
  meta: BatchMetaView;
  nextChunk: number;
  dispatched: number;
  dispatchedKopecks: number;
  tally: BatchTally;
  inFlight: BatchInFlightRow[];
  /** Outcomes that settled while the last flush ran: the next run writes them to the store. */
  unflushed?: BatchRowOutcome[];
  /** Set once paying was allowed: by whom (approvers, or the reason none was needed) and when. */
  approval?: { by: string; at: string };
  /**
   * Everyone the batch has ever known to have submitted it (each verified submit the worker reported,
   * and the starter's): never forgotten, so emptying the record cannot make one of them an approver.
   */
  submittedBy?: string[];
  /** The audit trail of operator commands, carried over continue-as-new (newest COMMANDS_KEPT). */
  commands?: BatchCommandRecord[];
  fundsOk: boolean;
  paused: boolean;
  runs: number;
}

/** A batch's first run starts from nothing: the file's facts come from openBatch. */
export function freshCarry(checkFunds: boolean): BatchCarry {
  return {
    meta: { fileName: '', fileSha256: '', rowCount: 0, invalidRows: 0, totalKopecks: 0, chunkCount: 0 },
    nextChunk: 0,
    dispatched: 0,
    dispatchedKopecks: 0,
    tally: emptyTally(),
    inFlight: [],
    fundsOk: !checkFunds,
    paused: false,
    runs: 1,
  };
}

/**
 * The carry of a run about to continue as new: the whole carry, the window's rows in flight, the outcomes
 * not yet written, one more run. Spread whole, so a key added to BatchCarry is carried; its schema
 * (batchCarrySchema in contract.ts) must name it too (test/workflows/batch-state.test.ts).
 */
export function nextRunCarry(
  carry: BatchCarry,
  inFlight: BatchInFlightRow[],
  unflushed: BatchRowOutcome[],
): BatchCarry {
  return { ...carry, inFlight, unflushed, runs: carry.runs + 1 };
}

/** Where a batch's run waits before it pays: for approval, then for funds. */
export type BatchStage = 'approval' | 'funds' | 'paying';

/** The phase the progress query shows: a finish or a cancel outranks the stage, a pause only paying. */
export function batchPhase(s: {
  done: boolean;
  cancelled: boolean;
  stage: BatchStage;
  paused: boolean;
}): BatchPhase {
  if (s.done) return 'done';
  if (s.cancelled) return 'cancelling';
  if (s.stage === 'approval') return 'awaiting_approval';
  if (s.stage === 'funds') return 'awaiting_funds';
  return s.paused ? 'paused' : 'paying';
}

/**
 * A cancelled batch's rows never started are cancelled as a whole (finishBatch writes them to the
 * store row by row): every valid row not dispatched, with the kopecks not dispatched.
 */
export function cancelNeverStarted(carry: BatchCarry): void {
  const left = carry.meta.rowCount - carry.dispatched;
  if (left <= 0) return;
  const { tally } = carry;
  tally.counts.cancelled = (tally.counts.cancelled ?? 0) + left;
  tally.amounts.cancelled =
    (tally.amounts.cancelled ?? 0) + carry.meta.totalKopecks - carry.dispatchedKopecks;
  tally.failureCount += left;
}
