import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BatchAuthorization, SignedStatement } from '../shared/approval-contract';
import { type ApprovalCommand, type CancelCommand } from '../shared/operator-contract';
import { z } from 'zod';
import {
  payoutOptionsSchema,
  type PayoutOptions,
  type FinalPayoutState,
  type PayoutStatus,
} from '../payout/contract';
import { strictObject, type PayoutRequest } from '../../src/domain';
import {
  batchIdField,
  bool,
  count,
  DAY,
  millis,
  parseWith,
  personIdField,
  tally,
  type Fits,
  type Keys,
  type Result,
} from '../shared/parse';

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
  /**
   * Ask for approval even where the policy does not (docs/batches.md#approval). It can only raise the
   * requirement: what the policy and the file's record require is required whatever the input says.
   */
  requireApproval?: boolean;
  /** Payouts in flight at once (a sliding window). Default DEFAULT_MAX_IN_FLIGHT, whoever starts the batch. */
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
  /**
   * A row this batch paid: what its status events are built from when the outcome is recorded
   * (src/events/, docs/events.md). Taken off before the outcome is stored.
   */
  events?: { started: string; changes: [string, string][]; payee: PayoutStatus['payee'] };
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
  /** The sha256 of the file's bytes (64 hex): approvals are of these bytes. */
  fileSha256: string;
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
  /** A scheduled row asleep until its pay_on day: it holds no place in the window (issue 42). */
  asleep?: boolean;
}

export interface BatchWorkflowInput<Carry = unknown> {
  batchId: string;
  options?: BatchOptions;
  /**
   * The person whose verified submit statement started the batch (src/batch/commands/submit.ts): remembered, with
   * every submitter the worker reports, as someone who may never approve it. It can only forbid, never allow.
   */
  submitter?: string;
  /** Set by the batch itself when it continues as new. */
  carry?: Carry;
}

export interface BatchFinal {
  reportPath: string;
  summaryPath: string;
  summary: string;
  /** Set when the batch ended by a cancel, so a finished list can say «отменён» without a query. */
  cancelled?: true;
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
  /** Of those in flight, rows asleep until their pay_on day (they hold no place in the window). */
  scheduled?: number;
  /** Rows with a final outcome. */
  finished: number;
  counts: Record<string, number>;
  amounts: Record<string, number>;
  failures: BatchFailure[];
  failureCount: number;
  /**
   * Who may pay, as the batch last judged it: whether approval is required and why, how many approvers,
   * who submitted and approved, a standing rejection. `by`/`at`: when paying was allowed, by whom.
   */
  approval?: {
    required: boolean;
    by?: string;
    at?: string;
    because?: string;
    needed?: number;
    submitter?: string;
    approvedBy?: string[];
    rejected?: BatchAuthorization['rejected'];
  };
  /** Operator commands this batch took (pause, resume, cancel, approve, reject), oldest first, bounded. */
  commands?: BatchCommandRecord[];
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

/** One operator command as the batch took it, for the audit trail. */
export interface BatchCommandRecord {
  command: 'approve' | 'reject' | 'pause' | 'resume' | 'cancel';
  /** A person id proven by signature (approve, reject), or the name the caller gave (pause, resume, cancel). */
  by: string;
  proven: boolean;
  at: string;
  answer: string;
  note?: string;
}

/**
 * Approve or reject the batch's file: a statement signed by an approver (docs/batches.md#approval). The
 * validator checks the signature, the person's role, that they did not submit it and that it is about this
 * batch's exact file, so a forged, replayed or self-given approval is refused before it reaches history.
 */
export const approveBatchUpdate = defineUpdate<string, [SignedStatement]>('approveBatch');

export const rejectBatchUpdate = defineUpdate<string, [SignedStatement]>('rejectBatch');

export const pauseBatchUpdate = defineUpdate<string, [ApprovalCommand]>('pauseBatch');

export const resumeBatchUpdate = defineUpdate<string, [ApprovalCommand]>('resumeBatch');

export const cancelBatchUpdate = defineUpdate<string, [CancelCommand]>('cancelBatch');

/** Temporal UI's "Send signal": the same signed statement, noted and ignored when it does not count. */
export const batchApproveSignal = defineSignal<[SignedStatement]>('approve');

export const batchRejectSignal = defineSignal<[SignedStatement]>('reject');

export const batchPauseSignal = defineSignal<[ApprovalCommand]>('pause');

export const batchResumeSignal = defineSignal<[ApprovalCommand]>('resume');

export const batchCancelSignal = defineSignal<[CancelCommand]>('cancel');

/**
 * A payout the batch waits for says it has settled (its money state is final). Only a nudge: the batch
 * reads the payout's record from the server before it counts the row, so a forged one changes nothing.
 */
export const payoutSettledSignal = defineSignal<[{ reference: string }]>('payoutSettled');

/**
 * A scheduled payout of the batch went to sleep (`asleep: true`: its place in the window is free) or woke
 * and asks for a place (`false`): the batch answers `slotGranted` when one is free, so rows waking together
 * keep to the in-flight limit. A forged one moves only a place in the window, never money: the payout
 * still takes every check before its session.
 */
export const payoutSleepSignal = defineSignal<[{ reference: string; asleep: boolean }]>('payoutSleep');

/** The deposit may have grown (a nominal_topup arrived): a batch waiting for funds re-checks at once. */
export const batchFundsChangedSignal = defineSignal<[{ reason: string }]>('fundsChanged');

/**
 * The file's record changed outside a decision (it was resubmitted): a batch waiting for approval asks the
 * worker to judge it again. Only a nudge: the worker reads the record itself, so a forged one changes nothing.
 */
export const batchRecordChangedSignal = defineSignal<[]>('recordChanged');

// ---------------------------------------------------------------- the input's rules

const batchOptions = strictObject({
  requireApproval: bool().optional(),
  maxInFlight: count(1, 500).optional(),
  checkFunds: bool().optional(),
  fundsRecheckMs: millis(100, DAY).optional(),
  // Temporal refuses a history past 51 200 events; continuing as new well before keeps replays fast.
  continueAsNewAfterEvents: count(10, 40_000).optional(),
  payout: payoutOptionsSchema().optional(),
});

const anObject = () => z.looseObject({}, { error: 'expected an object' });
const aList = () => z.array(z.unknown(), { error: 'expected a list' });

/**
 * The keys of the batch's carry (workflows/batch/state.ts BatchCarry: test/workflows/batch-state.test.ts
 * holds the two to the same keys). Written by the batch itself on continue-as-new: its top level is
 * checked, the rest passes untouched.
 */
export const batchCarrySchema = () =>
  z.looseObject(
    {
      meta: anObject(),
      nextChunk: tally(),
      dispatched: tally(),
      dispatchedKopecks: tally(),
      tally: anObject(),
      inFlight: aList(),
      unflushed: aList().optional(),
      approval: anObject().optional(),
      submittedBy: z.array(personIdField(), { error: 'expected a list' }).optional(),
      commands: aList().optional(),
      fundsOk: bool(),
      paused: bool(),
      runs: tally(),
    },
    { error: 'expected an object' },
  );

const batchInput = strictObject({
  batchId: batchIdField(),
  options: batchOptions.optional(),
  submitter: personIdField().optional(),
  carry: batchCarrySchema().optional(),
});

/**
 * `continued`: this run was started by continue-as-new (workflowInfo().continuedFromExecutionRunId is
 * set). Only then may the input carry `carry`: a first run given one would skip loading the batch,
 * its approval and its funds check on someone's say-so.
 */
export function parseBatchWorkflowInput(
  raw: unknown,
  context: { continued: boolean },
): Result<BatchWorkflowInput> {
  const r = parseWith<BatchWorkflowInput>(batchInput, raw);
  if (r.ok && r.value.carry !== undefined && !context.continued) {
    return {
      ok: false,
      message:
        'carry: expected no carry when starting a batch (only the batch itself sets it on continue-as-new)',
    };
  }
  return r;
}

type _SchemasFitTheirTypes = [
  Fits<z.output<typeof batchOptions>, BatchOptions>,
  Fits<keyof BatchOptions, Keys<typeof batchOptions>>,
  Fits<z.output<typeof batchInput>, Omit<BatchWorkflowInput, 'carry'> & { carry?: object }>,
  Fits<keyof BatchWorkflowInput, Keys<typeof batchInput>>,
];
