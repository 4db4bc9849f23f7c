import {
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
  approval?: { by: string; at: string };
  fundsOk: boolean;
  paused: boolean;
  runs: number;
}
