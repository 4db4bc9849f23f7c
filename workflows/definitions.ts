import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentSession } from '../src/bank/types/session';
import type { PayoutMethod, PayoutRequest } from '../src/csv/types';

/**
 * Every signal and query of payrun's workflows, and the shapes they carry, defined once and
 * imported by the workflows, the webhook ingress and the CLI alike.
 */

// ---------------------------------------------------------------- workflow identities

/** A payout's workflow id is its reference: the reference *is* the payout's identity. */
export const payoutWorkflowId = (reference: string) => `payout-${reference}`;
export const refundWorkflowId = (reference: string) => `refund-${reference}`;
/** Bank events that match no running payrun workflow are kept here for operators. */
export const WEBHOOK_INBOX_WORKFLOW_ID = 'payrun-webhook-inbox';
/** The inbox's workflow type, for processes that reach it by name without loading workflow code. */
export const WEBHOOK_INBOX_WORKFLOW_TYPE = 'webhookInboxWorkflow';
/** Key under which payrun puts its routing data into every bank request's `metadata`. */
export const METADATA_KEY = 'payrun';
export interface PayrunMetadata {
  workflow_id: string;
  reference: string;
  batch_id?: string;
  /** The accountant's own metadata from the batch row, passed through untouched. */
  user?: unknown;
}

// ---------------------------------------------------------------- bank events

export type BankEventType =
  | 'ready_to_confirm'
  | 'payment_finished'
  | 'action_required'
  | 'ready_to_capture'
  | 'payment_refunded'
  | 'confirmation_payout'
  | 'nominal_topup'
  | 'unknown';

/**
 * A verified webhook as the ingress hands it to a workflow. `id` is the SHA-256 of the raw body,
 * so a webhook the bank resends is recognised and applied once.
 */
export interface BankEventSignal {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  /** Present for session events (v1 names). */
  session?: PaymentSession;
  /** confirmation_payout fields. */
  confirmation?: { event: string; eventDate: string; transactionId?: string };
  /** The event body for anything else (nominal_topup, unknown types). */
  body?: unknown;
  /**
   * Set by the ingress when the workflows this event belongs to have already closed (for example a
   * confirmation_payout after its payout finished): the inbox records it instead of rerouting it.
   */
  lateFor?: string[];
}
export const bankEventSignal = defineSignal<[BankEventSignal]>('bankEvent');

// ---------------------------------------------------------------- payout

export type PayoutState =
  | 'reconciling' // settling an earlier run of this reference with the bank before anything else
  | 'checking_taxpayer'
  | 'creating_session'
  | 'awaiting_ready_to_confirm'
  | 'awaiting_approval'
  | 'confirming'
  | 'awaiting_result'
  | 'succeeded' // paid; waiting for confirmation_payout when enabled
  | 'credited' // confirmation_payout arrived
  | 'returned' // the recipient's bank returned the money
  | 'failed' // the bank refused or failed the payout
  | 'rejected' // not paid by payrun's own decision (taxpayer check); no bank session
  | 'expired' // approval never came within the confirm window; session cancelled
  | 'cancelled' // cancelled by an operator
  | 'needs_attention'; // the workflow could not tell whether money moved: `payrun payout reconcile` asks the bank

export interface PayoutOptions {
  /** Confirm only after an `approve` signal (per payout, or inherited from its batch). */
  requireApproval?: boolean;
  /** Wait for confirmation_payout (and a possible return) after success. Default false. */
  awaitCreditConfirmation?: boolean;
  /** How long to wait for confirmation_payout; default 7 business days. */
  creditConfirmationBusinessDays?: number;
  /** An exact wait instead of business days (tests, or a bank with a known delay). */
  creditConfirmationWindowMs?: number;
  /** Poll session/status when no webhook came for this long. Default 60 s. */
  pollAfterMs?: number;
  /** The bank's confirm window (4 hours) and the safety margin payrun keeps before it. */
  confirmWindowMs?: number;
  confirmSafetyMarginMs?: number;
  /** How long a taxpayer check result is reused for the same tax number. Default 24 hours. */
  taxpayerCheckMaxAgeMs?: number;
  /**
   * Only settle earlier runs of this reference with the bank (`payrun payout reconcile`), pay nothing:
   * the run ends paid, not paid (may be paid again) or still needing attention.
   */
  reconcileOnly?: boolean;
}

export interface PayoutInput {
  request: PayoutRequest;
  batchId?: string;
  options?: PayoutOptions;
}

export interface PayoutFailure {
  /** Bank error code (declined_by_issuer_bank, confirm_timeout…) or payrun's own (not_self_employed…). */
  code: string;
  reason: string;
}

/** The payout workflow's result and its `status` query answer: one documented shape. */
export interface PayoutStatus {
  reference: string;
  state: PayoutState;
  amount: number;
  currency: string;
  batchId?: string;
  bank: {
    sessionId?: string;
    payoutId?: string;
    receiptId?: string;
    receiptLink?: string;
    rrn?: string;
    authCode?: string;
  };
  /**
   * Whom the payout is for, so a later row reusing the reference can be compared with it (a reference
   * belongs to one payout). Personal data: it travels only in encrypted payloads, never in logs.
   */
  payee: { taxReference: string; method: PayoutMethod };
  taxpayer?: { isProfessionalIncomeTaxpayer: boolean; isLinked: boolean; checkedAt: string };
  approval?: { required: boolean; approvedBy?: string; approvedAt?: string };
  failure?: PayoutFailure;
  /** When each step happened (ISO 8601, workflow time): started, sessionCreated, readyToConfirm, confirmed, finished, credited, returned… */
  timestamps: Record<string, string>;
  /** Operator-visible notes: polls that recovered a lost webhook, ignored duplicate signals and so on. */
  notes: string[];
}

export const payoutStatusQuery = defineQuery<PayoutStatus>('status');

/** Who asks an operator command, and why: `by` names a person or system (1–128 printable characters). */
export interface ApprovalCommand {
  by: string;
  note?: string;
}
export interface CancelCommand {
  by: string;
  reason?: string;
}
/**
 * Operator commands as Updates: a validator refuses malformed or anonymous input before anything is
 * written to history, and the caller gets the real outcome back. The signals of the same meaning stay
 * for Temporal UI's "Send signal"; their handlers note and ignore malformed input.
 */
export const approvePayoutUpdate = defineUpdate<string, [ApprovalCommand]>('approvePayout');
export const cancelPayoutUpdate = defineUpdate<string, [CancelCommand]>('cancelPayout');
export const approveSignal = defineSignal<[ApprovalCommand]>('approve');
export const cancelSignal = defineSignal<[CancelCommand]>('cancel');
/**
 * A batch that continues as new, or waits for a payout it did not start, asks the payout to say when it
 * has settled: the payout then sends `payoutSettled` to the batch's workflow id, which reaches the
 * batch's current run.
 */
export const reportToSignal = defineSignal<[{ batchId: string }]>('reportTo');

// ---------------------------------------------------------------- refund

export type RefundState = 'requesting' | 'awaiting_refund' | 'refunded' | 'failed';

export interface RefundInput {
  /** The refund's own reference (its identity, like a payout reference). */
  reference: string;
  /** A succeeded payment session. */
  sessionId: string;
  /** Kopecks; absent refunds the whole remaining amount. */
  amount?: number;
  pollAfterMs?: number;
}

export interface RefundStatus {
  reference: string;
  state: RefundState;
  sessionId: string;
  amount?: number;
  refundId?: string;
  failure?: PayoutFailure;
  timestamps: Record<string, string>;
  notes: string[];
}
export const refundStatusQuery = defineQuery<RefundStatus>('status');

// ---------------------------------------------------------------- taxpayer checks

export interface TaxpayerVerdict {
  isProfessionalIncomeTaxpayer: boolean;
  isLinked: boolean;
  checkedAt: string;
  /** Set when the bank answered `error` for the check. */
  error?: string;
}
/** A payout asks the per-tax-number workflow for a verdict; the answer comes back as a signal. */
export const taxpayerCheckRequestSignal =
  defineSignal<[{ replyTo: string; maxAgeMs: number }]>('taxpayerCheckRequest');
export const taxpayerVerdictSignal = defineSignal<[TaxpayerVerdict]>('taxpayerVerdict');
/** The verdict the per-tax-number workflow holds (undefined before its first check). */
export const taxpayerVerdictQuery = defineQuery<TaxpayerVerdict | undefined>('verdict');

// ---------------------------------------------------------------- connectivity check

/** Connectivity check: an operator (or `make demo`) acknowledges that the round trip worked. */
export const acknowledgeSignal = defineSignal<[{ by: string }]>('acknowledge');
export const connectivityStatusQuery = defineQuery<string>('connectivityStatus');

// ---------------------------------------------------------------- webhook inbox

/** How long and how often the inbox retries routing an event no workflow took. */
export interface WebhookInboxOptions {
  /** Total time to keep retrying before the event becomes an orphan. Default 15 minutes. */
  rerouteWindowMs?: number;
  /** First retry interval (doubling up to rerouteMaxIntervalMs). Default 2 s. */
  rerouteInitialIntervalMs?: number;
  /** Default 60 s. */
  rerouteMaxIntervalMs?: number;
  /** How many routed events the query shows (the count is kept whole). Default 50. */
  routedKept?: number;
  /** Continue-as-new after this many history events even if the server does not suggest it. Default 2 000. */
  continueAsNewAfterEvents?: number;
}

export interface InboxRouted {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  routedAt: string;
  delivered: string[];
}

export interface InboxOrphan {
  event: BankEventSignal;
  orphanedAt: string;
  reason: string;
}

/** A nominal account top-up as the batch workflow will read it (amounts in kopecks). */
export interface InboxTopup {
  id: string;
  receivedAt: string;
  amount: number;
  currency: string;
  accountBalance: number;
  paymentDate: string;
  accountNumber?: string;
  docId?: string;
  docNum?: string;
}

export interface InboxUnknown {
  id: string;
  receivedAt: string;
  body: unknown;
}

export interface InboxPending {
  event: BankEventSignal;
  /** Workflow time (ms) the inbox took it: the reroute window counts from here, across continue-as-new. */
  since: number;
}

/** Everything the inbox carries over continue-as-new. */
export interface WebhookInboxState {
  pending: InboxPending[];
  routedCount: number;
  routed: InboxRouted[];
  orphaned: InboxOrphan[];
  topups: InboxTopup[];
  unknown: InboxUnknown[];
  dismissedCount: number;
  /** Events for workflows that had already closed (newest kept), and how many there were in all. */
  late?: InboxLate[];
  lateCount?: number;
  /** Most recent event ids, oldest first: a resent webhook is recognised and kept once. */
  seenIds: string[];
}

export interface InboxLate {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  /** The closed workflows the event belongs to. */
  owners: string[];
  /** confirmation_payout wording, when it is one. */
  confirmation?: BankEventSignal['confirmation'];
}

export interface WebhookInboxInput {
  options?: WebhookInboxOptions;
  /** Set by the inbox itself when it continues as new. */
  state?: WebhookInboxState;
}

export interface InboxView {
  pending: { id: string; type: BankEventType; sessionId?: string; receivedAt: string }[];
  routed: { count: number; last: InboxRouted[] };
  orphaned: InboxOrphan[];
  topups: InboxTopup[];
  unknown: InboxUnknown[];
  dismissedCount: number;
  late: { count: number; last: InboxLate[] };
}
export const inboxQuery = defineQuery<InboxView>('inbox');
/** An operator has dealt with an orphaned event: it leaves the orphan list. */
export const dismissOrphanSignal = defineSignal<[{ id: string; by: string }]>('dismissOrphan');

// ---------------------------------------------------------------- batch

/** A batch's id comes from its file's bytes: the same file dropped twice is the same batch. */
export const batchWorkflowId = (contentHash: string) => `batch-${contentHash.slice(0, 16)}`;
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
  | Exclude<
      PayoutState,
      | 'reconciling'
      | 'checking_taxpayer'
      | 'creating_session'
      | 'awaiting_ready_to_confirm'
      | 'awaiting_approval'
      | 'confirming'
      | 'awaiting_result'
    >
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

/** Another run of the same payout workflow id, as the at-most-once guard at the start of every run reads it. */
export interface EarlierPayoutRun {
  runId: string;
  /** RUNNING, COMPLETED, FAILED, TERMINATED, TIMED_OUT, CANCELED… as the server says. */
  closeStatus: string;
  verdict: 'running' | 'paid' | 'not_paid' | 'in_doubt';
  /** Its last status (result, failure detail or status query), when it could be read. */
  status?: PayoutStatus;
}

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

export interface BatchWorkflowInput {
  batchId: string;
  options?: BatchOptions;
  /** Set by the batch itself when it continues as new. */
  carry?: BatchCarry;
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
