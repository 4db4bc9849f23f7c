import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SignedStatement } from '../shared/approval-contract';
import { type CancelCommand } from '../shared/operator-contract';
import { payoutRequestSchema, strictObject, type PayoutMethod, type PayoutRequest } from '../../src/domain';
import { z } from 'zod';
import {
  batchIdField,
  bool,
  count,
  DAY,
  HOUR,
  millis,
  MINUTE,
  parseWith,
  SAYS_WHAT_IT_SAW,
  SECOND,
  type Fits,
  type Keys,
  type Result,
} from '../shared/parse';

// The payout workflow's contract: its id, input, result and status, its Updates, signals and query.

/** A payout's workflow id is its reference: the reference *is* the payout's identity. */
export const payoutWorkflowId = (reference: string) => `payout-${reference}`;

export type PayoutState =
  | 'scheduled' // a row with a pay_on date, its place under the cap reserved, asleep until that day
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
  | 'scheduled'
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
  /**
   * Send the confirm from the webhook check that finds the session ready, when nothing else is awaited
   * (no approval of its own, no cancel): one local activity and one marker fewer. Set by batches started
   * since; a run without it confirms in a step of its own, as runs recorded before it did.
   */
  confirmWithCheck?: boolean;
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
  /**
   * Every state the payout entered, in order, with its workflow time: a status event's sequence number
   * is its place here (docs/events.md). Absent in statuses of runs that ended before it existed.
   */
  changes?: [PayoutState, string][];
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

/** A scheduled payout that woke may go on: its batch has a place for it in its window (issue 42). */
export const slotGrantedSignal = defineSignal('slotGranted');

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

// ---------------------------------------------------------------- the input's rules

/**
 * The bank's confirm window and payrun's default margin (workflows/payout/run-state.ts DEFAULTS): a margin
 * at least as long as the window would expire every approval before it could come.
 */
const BANK_CONFIRM_WINDOW_MS = 4 * HOUR;
const DEFAULT_CONFIRM_SAFETY_MARGIN_MS = 15 * MINUTE;

const payoutRequest = payoutRequestSchema();

const payoutOptions = strictObject({
  requireApproval: bool().optional(),
  awaitCreditConfirmation: bool().optional(),
  creditConfirmationBusinessDays: count(0, 30, 'a whole number of business days').optional(),
  creditConfirmationWindowMs: millis(0, 60 * DAY).optional(),
  // Polls double from here; below 100 ms the poll loop would hammer the bank.
  pollAfterMs: millis(100, HOUR).optional(),
  confirmWindowMs: millis(SECOND, BANK_CONFIRM_WINDOW_MS).optional(),
  confirmSafetyMarginMs: millis(0, BANK_CONFIRM_WINDOW_MS).optional(),
  taxpayerCheckMaxAgeMs: millis(0, 7 * DAY).optional(),
  reconcileOnly: bool().optional(),
  confirmWithCheck: bool().optional(),
}).superRefine((o, ctx) => {
  const window = o.confirmWindowMs ?? BANK_CONFIRM_WINDOW_MS;
  const margin = o.confirmSafetyMarginMs ?? DEFAULT_CONFIRM_SAFETY_MARGIN_MS;
  if (margin >= window) {
    ctx.addIssue({
      code: 'custom',
      path: [o.confirmSafetyMarginMs !== undefined ? 'confirmSafetyMarginMs' : 'confirmWindowMs'],
      message: `expected confirmSafetyMarginMs (${margin}) to be less than confirmWindowMs (${window}), or no approval could ever arrive in time`,
      params: { [SAYS_WHAT_IT_SAW]: true },
    });
  }
});

const payoutInput = strictObject({
  request: payoutRequest,
  batchId: batchIdField().optional(),
  options: payoutOptions.optional(),
});

/** The payout options' rules, for the batch's input (its `payout` options). A builder: see parse.ts. */
export const payoutOptionsSchema = () => payoutOptions;

/** A payout's or a batch's input refuses keys it does not know, naming them (issue 24). */
export function parsePayoutInput(raw: unknown): Result<PayoutInput> {
  return parseWith<PayoutInput>(payoutInput, raw);
}

type _SchemasFitTheirTypes = [
  Fits<z.output<typeof payoutRequest>, PayoutRequest>,
  Fits<keyof PayoutRequest, Keys<typeof payoutRequest>>,
  Fits<keyof PayoutRequest['recipient'], keyof z.output<typeof payoutRequest>['recipient']>,
  Fits<z.output<typeof payoutRequest>['method'], PayoutMethod>,
  Fits<z.output<typeof payoutOptions>, PayoutOptions>,
  Fits<keyof PayoutOptions, Keys<typeof payoutOptions>>,
  Fits<z.output<typeof payoutInput>, PayoutInput>,
  Fits<keyof PayoutInput, Keys<typeof payoutInput>>,
];

/** States in which a payout's money left payrun's account (a return came back after it left). */
export const PAID_STATES: readonly PayoutState[] = ['succeeded', 'credited', 'returned'];
