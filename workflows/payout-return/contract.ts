import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { nonBlank, text } from '../../src/domain';
import { MAX_SIGNATURE_BYTES, MAX_SIGNED_WEBHOOK_BYTES } from '../shared/bank-event-contract';
import { base64, digits, object, parseWith, type Result } from '../shared/parse';

// The payout return workflow's contract: its id, input, evidence signal, status and query.

/** Its workflow type, for the ingress and activities, which start it by name without workflow code. */
export const PAYOUT_RETURN_WORKFLOW_TYPE = 'payoutReturnWorkflow';

/** A bank session id as the bank writes it (ps_10000045): no personal data, safe in a workflow id. */
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
export const isSessionId = (v: string) => SESSION_ID.test(v);

/**
 * One return per bank session: the id is the session's, so the webhook and the statement, whichever
 * comes first, reach the same workflow (signal-with-start), and a completed return is never started
 * again (RETURN_ID_REUSE). Session ids are the bank's, never a person's data; the task queue is part of
 * it so two payrun deployments on one namespace (each its own bank project) never share a return.
 */
export const payoutReturnWorkflowId = (taskQueue: string, sessionId: string) =>
  `payout-return-${taskQueue}-${sessionId}`;

/**
 * A completed return blocks every later start under its id; a failed one (no evidence held, or
 * terminated by hand) may be started again by real evidence, so nobody can block a return by starting
 * one with forged evidence.
 */
export const RETURN_ID_REUSE = 'ALLOW_DUPLICATE_FAILED_ONLY' as const;

/** The bank's word that a payout came back: its signed webhook, or a credit line of its statement. */
export const returnEvidenceSchema = () =>
  z.discriminatedUnion(
    'source',
    [
      object({
        source: z.literal('webhook'),
        /** The ingress's event id (SHA-256 of the body). */
        eventId: nonBlank(256, 'an event id'),
        receivedAt: text(64, 'a timestamp'),
        signed: object({
          body: base64(MAX_SIGNED_WEBHOOK_BYTES, 'the webhook body'),
          signature: base64(MAX_SIGNATURE_BYTES, 'the X-PARTNER-SIGN signature'),
        }),
      }),
      object({
        source: z.literal('statement'),
        account: digits(/^\d{20}$/, 'a 20-digit account number'),
        day: digits(/^\d{4}-\d{2}-\d{2}$/, 'a day (YYYY-MM-DD)'),
        bankSystemId: nonBlank(128, "the statement line's bank_system_id"),
      }),
    ],
    { error: 'expected webhook or statement evidence' },
  );
export type ReturnEvidence = z.infer<ReturnType<typeof returnEvidenceSchema>>;

export function parseReturnEvidence(raw: unknown): Result<ReturnEvidence> {
  return parseWith<ReturnEvidence>(returnEvidenceSchema(), raw);
}

export const payoutReturnInputSchema = () =>
  object({
    sessionId: digits(SESSION_ID, 'a bank session id'),
  });
export type PayoutReturnInput = z.infer<ReturnType<typeof payoutReturnInputSchema>>;

export function parsePayoutReturnInput(raw: unknown): Result<PayoutReturnInput> {
  return parseWith<PayoutReturnInput>(payoutReturnInputSchema(), raw);
}

/** What the worker found the evidence to say, after checking it with the bank's key or the bank's statement. */
export interface ProvenReturn {
  source: ReturnEvidence['source'];
  /** The bank's words (the statement line's purpose, or the webhook's refund) and its date of the return. */
  bankWords: string;
  bankDate: string;
  /** The webhook's event id or the statement line's bank_system_id. */
  evidenceId: string;
  /** What the bank says came back: the refund's amount, or the statement credit's (which may add the fee back). */
  amountKopecks: number;
}

/**
 * How much of the payout the bank's word does not cover. Only a whole return makes the row `returned`
 * (and so payable again under `REF~r1`): a part coming back would otherwise be paid again in full.
 */
export function returnShortfall(proven: ProvenReturn, payout: ReturnedPayout): number {
  const back = typeof proven.amountKopecks === 'number' ? proven.amountKopecks : 0;
  return Math.max(0, payout.amount - back);
}

export type VerifiedEvidence = { ok: true; proven: ProvenReturn } | { ok: false; why: string };

/** The payout the return belongs to, as its own record says (personal data stays in encrypted payloads). */
export interface ReturnedPayout {
  reference: string;
  payoutWorkflowId: string;
  amount: number;
  batchId?: string;
  row?: number;
  selfEmployed: boolean;
  receiptId?: string;
}

export const RETURN_STATES = ['verifying', 'verified', 'returned'] as const;

export interface PayoutReturnStatus {
  sessionId: string;
  /** verifying: no evidence held yet; verified: the bank's word held, being applied; returned: done. */
  state: (typeof RETURN_STATES)[number];
  /** Every source that proved it (the first one applied the return; a later one is recorded only). */
  proven: ProvenReturn[];
  /** Evidence that did not hold, and why (ids and rules only). */
  refused: string[];
  payout?: ReturnedPayout;
  /** What the return changed: the batch's report, the ledger, the receipt. */
  applied?: { report?: string; ledger: 'taken_back' | 'already' | 'no_ledger'; receipt?: 'to_annul' };
  timestamps: Record<string, string>;
}

export const payoutReturnStatusQuery = defineQuery<PayoutReturnStatus>('status');

/** The bank's word of the return, from the ingress (a late payment_refunded) or reconciliation (a credit). */
export const returnEvidenceSignal = defineSignal<[ReturnEvidence]>('returnEvidence');

/** Why a return run ended without returning anything: it may be started again by real evidence. */
export const RETURN_UNPROVEN_TYPE = 'payout_return_unproven';
