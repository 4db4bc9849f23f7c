import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PolicyView, SignedStatement } from '../shared/approval-contract';
import type { TaxpayerVerdict } from '../taxpayer/contract';
import type { SessionPhase } from '../shared/bank-session';
import type { SignedWebhook } from '../shared/bank-event-contract';
import { type CancelCommand } from '../shared/operator-contract';
import type { PayoutMethod, PayoutRequest } from '../../src/domain';

// The payout workflow's contract: its id, input, result and status, its Updates, signals and query.

/** A payout's workflow id is its reference: the reference *is* the payout's identity. */
export const payoutWorkflowId = (reference: string) => `payout-${reference}`;

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
  | 'rejected' // not paid by payrun's own decision (taxpayer check, no approval); no bank session
  | 'limit_exceeded' // not paid: it would pass the recipient's yearly cap or another limit; no bank session
  | 'expired' // approval never came within the confirm window; session cancelled
  | 'cancelled' // cancelled by an operator
  | 'needs_attention'; // the workflow could not tell whether money moved: `payrun payout reconcile` asks the bank

/** States of a payout still in flight: no report row shows them. */
export type InFlightPayoutState =
  | 'reconciling'
  | 'checking_taxpayer'
  | 'creating_session'
  | 'awaiting_ready_to_confirm'
  | 'awaiting_approval'
  | 'confirming'
  | 'awaiting_result';
/** The state a payout ends in (succeeded may still turn credited or returned while it waits for them). */
export type FinalPayoutState = Exclude<PayoutState, InFlightPayoutState>;

export interface PayoutOptions {
  /**
   * Confirm only after an approver's signed approval of this run. A payout started outside any batch needs
   * one anyway above the policy's amount (docs/security.md#who-may-pay); this can only ask for more.
   */
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

/**
 * Operator commands as Updates: a validator refuses malformed or anonymous input before anything is
 * written to history, and the caller gets the real outcome back. The signals of the same meaning stay
 * for Temporal UI's "Send signal"; their handlers note and ignore malformed input.
 */
export const approvePayoutUpdate = defineUpdate<string, [SignedStatement]>('approvePayout');

export const cancelPayoutUpdate = defineUpdate<string, [CancelCommand]>('cancelPayout');

export const approveSignal = defineSignal<[SignedStatement]>('approve');

export const cancelSignal = defineSignal<[CancelCommand]>('cancel');

/**
 * A batch that continues as new, or waits for a payout it did not start, asks the payout to say when it
 * has settled: the payout then sends `payoutSettled` to the batch's workflow id, which reaches the
 * batch's current run.
 */
export const reportToSignal = defineSignal<[{ batchId: string }]>('reportTo');

/** Another run of the same payout workflow id, as the at-most-once guard at the start of every run reads it. */
export interface EarlierPayoutRun {
  runId: string;
  /** RUNNING, COMPLETED, FAILED, TERMINATED, TIMED_OUT, CANCELED… as the server says. */
  closeStatus: string;
  verdict: 'running' | 'paid' | 'not_paid' | 'in_doubt';
  /** Its last status (result, failure detail or status query), when it could be read. */
  status?: PayoutStatus;
  /** When it started and closed, as the server recorded them (read for a run in doubt). */
  startedAt?: string;
  closedAt?: string;
}

/**
 * What a payout carries into its own continue-as-new when its history nears Temporal's limits (a flood of
 * signals): where it was and everything it knew, so the next run goes on from there and never creates a
 * second session. Taken only from the workflow's own continue-as-new, never from a hand-started run.
 */
export interface PayoutCarry {
  /** The step the run stopped in: waiting for ready_to_confirm (and approval), for the result, for credit. */
  step: 'confirm' | 'result' | 'credit';
  tracker: TrackerSnapshot;
  confirmDeadline: number;
  creditUntil?: number;
  verdict?: TaxpayerVerdict;
  cancelRequest?: CancelCommand;
  lateRefusal?: { code: string; reason: string };
  confirmSent: boolean;
  approvalPolicy?: PolicyView;
  reportTo?: string;
  told: boolean;
  /** How many runs of this payout came before this one (each continued as new). */
  continuations: number;
}

/** A tracker's whole state, as a payout carries it into its own continue-as-new. */
export interface TrackerSnapshot {
  status: PayoutStatus;
  phase: SessionPhase;
  nudged: boolean;
  unchecked: SignedWebhook[];
  credited?: { event: string; eventDate: string };
  returnedAt?: string;
  seenEvents: string[];
  notesDropped: number;
  published: [string, string | number][];
  stateShown: boolean;
}
