import { defineSignal } from '@temporalio/workflow';
import type { PaymentSession } from '../../src/bank/types/session';

// The bank events a verified webhook becomes: the signal the ingress sends to payrun's workflows.

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
