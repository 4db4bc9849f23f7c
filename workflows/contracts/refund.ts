import { defineQuery } from '@temporalio/workflow';
import { type PayoutFailure } from './payout';

// The refund workflow's contract: its id, input, status and query.

export const refundWorkflowId = (reference: string) => `refund-${reference}`;

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
