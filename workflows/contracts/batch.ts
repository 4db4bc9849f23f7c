import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { type ApprovalCommand, type CancelCommand } from './operator';
import { type PayoutOptions, type FinalPayoutState, type PayoutStatus } from './payout';
import type { PayoutRequest } from '../../src/csv/types';

// The batch workflow's contract: its ids, input, options, row outcomes, progress and result, its Updates and signals.

/** A batch's id comes from its file's bytes: the same file dropped twice is the same batch. */
export const batchWorkflowId = (contentHash: string) => `batch-${contentHash.slice(0, 16)}`;

/**
 * Payouts in flight at once when the submitter does not say: measured with a realistic bank (200 ms per
 * call, 2 s per webhook, bench/batch.ts): 20 → 3.3–3.5 rows/s, 50 → 4.9–7.7, 100 → 6.5–9.7, 200 → 4.3–8.0
 * (docs/performance.md). A row lives about 5 s at the bank, so the window, not the CPU, caps a small one.
 */
export const DEFAULT_MAX_IN_FLIGHT = 100;

/** `payrun batch retry-failed` links a new batch to the first one by id. */
export const retryBatchWorkflowId = (rootBatchId: string, n: number) => `${rootBatchId}-retry-${n}`;

export type BatchPhase = 'awaiting_approval' | 'awaiting_funds' | 'paying' | 'paused' | 'cancelling' | 'done';

export interface BatchOptions {
  /** Pay nothing until an `approve` signal; the payouts then confirm on their own. Default false. */
  requireApproval?: boolean;
  /** Payouts in flight at once (a sliding window). Default 20. */
  maxInFlight?: number;
  /** Compare the deposit balance with the batch total before paying. Default true. */
  checkFunds?: boolean;
  /** How often the balance is re-checked while the deposit is short. Default 60 s. */
  fundsRecheckMs?: number;
  /** Continue-as-new at a chunk boundary once history has this many events. Default 10 000. */
  continueAsNewAfterEvents?: number;
  /** Options every payout of the batch gets (requireApproval is the batch's business, not theirs). */
  payout?: PayoutOptions;
}

/** A row's state in the report: a final payout state, or one the batch decides itself. */
export type BatchRowState =
  | FinalPayoutState
  | 'already_paid' // paid earlier, to the same payee for the same amount, by another batch or by hand
  | 'reference_conflict'; // the reference was paid to someone else or for another amount: nothing paid

/** A row's outcome as the report and the progress query show it. */
export interface BatchRowOutcome {
  row: number;
  reference: string;
  amount: number;
  state: BatchRowState;
  sessionId?: string;
  payoutId?: string;
  receiptLink?: string;
  errorCode?: string;
  reason?: string;
}

/** What an existing payout workflow tells about its reference (activities answer, the batch decides). */
export type PayoutLookup =
  | { kind: 'none' }
  | { kind: 'running' }
  | { kind: 'paid' | 'not_paid'; status: PayoutStatus }
  | { kind: 'needs_attention'; closeStatus: string; reason: string; status?: PayoutStatus };

/** One valid row of a batch as its chunk holds it; `existing` when its reference already has a payout workflow. */
export interface BatchChunkRow {
  row: number;
  request: PayoutRequest;
  existing?: PayoutLookup;
}

/** The parts of the stored batch the workflow needs (the rows themselves stay in the store). */
export interface BatchMetaView {
  fileName: string;
  /** Valid rows to pay. */
  rowCount: number;
  invalidRows: number;
  totalKopecks: number;
  chunkCount: number;
  retryOf?: string;
}

export interface BatchFailure {
  row: number;
  reference: string;
  state: BatchRowState;
  code?: string;
  reason?: string;
}

export interface BatchTally {
  counts: Record<string, number>;
  amounts: Record<string, number>;
  /** The first failures, bounded; failureCount has them all. */
  failures: BatchFailure[];
  failureCount: number;
}

export interface BatchInFlightRow {
  row: number;
  reference: string;
  amount: number;
  /** Kept only while the row waits on a payout someone else started: its outcome is compared with it. */
  payee?: PayoutStatus['payee'];
}

export interface BatchWorkflowInput<Carry = unknown> {
  batchId: string;
  options?: BatchOptions;
  /** Set by the batch itself when it continues as new. */
  carry?: Carry;
}

export interface BatchFinal {
  reportPath: string;
  summaryPath: string;
  summary: string;
}

export interface BatchProgress {
  batchId: string;
  phase: BatchPhase;
  fileName?: string;
  rows: number;
  invalidRows: number;
  totalKopecks: number;
  /** Rows handed to a payout (or found already handled). */
  dispatched: number;
  inFlight: number;
  /** Rows with a final outcome. */
  finished: number;
  counts: Record<string, number>;
  amounts: Record<string, number>;
  failures: BatchFailure[];
  failureCount: number;
  approval?: { required: boolean; by?: string; at?: string };
  funds?: { neededKopecks: number; balanceKopecks?: number; checkedAt?: string };
  runs: number;
  final?: BatchFinal;
  /** Malformed signals the batch ignored (newest 20). */
  notes?: string[];
}

export interface BatchResult extends BatchFinal {
  batchId: string;
  counts: Record<string, number>;
  amounts: Record<string, number>;
}

export const batchProgressQuery = defineQuery<BatchProgress>('progress');

/** Operator commands on a batch as Updates (validated, answered); the signals stay for Temporal UI. */
export const approveBatchUpdate = defineUpdate<string, [ApprovalCommand]>('approveBatch');

export const pauseBatchUpdate = defineUpdate<string, [ApprovalCommand]>('pauseBatch');

export const resumeBatchUpdate = defineUpdate<string, [ApprovalCommand]>('resumeBatch');

export const cancelBatchUpdate = defineUpdate<string, [CancelCommand]>('cancelBatch');

export const batchApproveSignal = defineSignal<[ApprovalCommand]>('approve');

export const batchPauseSignal = defineSignal<[ApprovalCommand]>('pause');

export const batchResumeSignal = defineSignal<[ApprovalCommand]>('resume');

export const batchCancelSignal = defineSignal<[CancelCommand]>('cancel');

/**
 * A payout the batch waits for says it has settled (its money state is final). Only a nudge: the batch
 * reads the payout's record from the server before it counts the row, so a forged one changes nothing.
 */
export const payoutSettledSignal = defineSignal<[{ reference: string }]>('payoutSettled');

/** The deposit may have grown (a nominal_topup arrived): a batch waiting for funds re-checks at once. */
export const batchFundsChangedSignal = defineSignal<[{ reason: string }]>('fundsChanged');
