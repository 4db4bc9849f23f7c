/** A payout by reference, running or closed, as `payrun payout status` finds it: the console and the read API. */
import type { Client } from '@temporalio/client';
import { lookupPayout } from '../batch/services/lookup';
import { provenReturnOf } from '../returns/read';
import { payoutStatusQuery, payoutWorkflowId, type PayoutStatus } from '../../workflows/payout/contract';

export type PayoutView =
  | { kind: 'none' }
  | { kind: 'running' | 'paid' | 'not_paid'; status: PayoutStatus }
  | { kind: 'needs_attention'; reason: string; status?: PayoutStatus };

/**
 * A payout, running or closed, as `payrun payout status` finds it (src/batch/services/lookup.ts): a paid
 * one the recipient's bank sent back is shown returned once its return workflow holds the bank's word.
 */
export async function findPayout(client: Client, reference: string, taskQueue?: string): Promise<PayoutView> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  switch (lookup.kind) {
    case 'none':
      return { kind: 'none' };
    case 'running':
      return {
        kind: 'running',
        status: await client.workflow.getHandle(workflowId).query(payoutStatusQuery),
      };
    case 'paid': {
      const sessionId = lookup.status.bank.sessionId;
      const proven = taskQueue && sessionId ? await provenReturnOf(client, taskQueue, sessionId) : undefined;
      if (!proven?.ok) return { kind: 'paid', status: lookup.status };
      const first = proven.status.proven[0]!;
      return {
        kind: 'paid',
        status: {
          ...lookup.status,
          state: 'returned',
          timestamps: { ...lookup.status.timestamps, returned: first.bankDate },
        },
      };
    }
    case 'not_paid':
      return { kind: lookup.kind, status: lookup.status };
    case 'needs_attention':
      return {
        kind: 'needs_attention',
        reason: lookup.reason,
        ...(lookup.status ? { status: lookup.status } : {}),
      };
  }
}
