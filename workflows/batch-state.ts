import {
  type BatchCommandRecord,
  type BatchInFlightRow,
  type BatchMetaView,
  type BatchRowOutcome,
  type BatchTally,
} from './contracts/batch';

// What the batch carries over continue-as-new: private to workflows/batch.ts.

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
  /** The audit trail of operator commands, carried over continue-as-new (newest COMMANDS_KEPT). */
  commands?: BatchCommandRecord[];
  fundsOk: boolean;
  paused: boolean;
  runs: number;
}
