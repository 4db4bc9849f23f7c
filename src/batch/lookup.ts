import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { PayoutLookup, PayoutStatus } from '../../workflows/definitions';

/**
 * What an existing payout workflow says about its reference. Completed = paid; Failed with a clean
 * `payout_*` failure = moved no money (may be paid again); Terminated, TimedOut, Cancelled or any other
 * failure may have left a bank session behind, so a person has to look before it is paid again.
 */
export async function lookupPayout(client: Client, workflowId: string): Promise<PayoutLookup> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { kind: 'none' };
    throw err;
  }
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return { kind: 'running' };
  if (status === 'COMPLETED') return { kind: 'paid', status: (await handle.result()) as PayoutStatus };
  if (status === 'FAILED') {
    try {
      await handle.result();
    } catch (err) {
      const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type?.startsWith('payout_') && cause.details?.[0])
        return { kind: 'not_paid', status: cause.details[0] as PayoutStatus };
    }
  }
  const how = status.toLowerCase();
  return {
    kind: 'needs_attention',
    closeStatus: how,
    reason: `an earlier payout workflow ${workflowId} ended ${how} without a clean outcome and may have created a bank session; check the bank before paying this reference again`,
  };
}

/** Runs `fn` over `items` with at most `limit` at a time, results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
