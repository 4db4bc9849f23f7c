/**
 * The bare-Temporal ceiling of bench/compare.ts: a payout's irreducible durable shape and nothing
 * else — start → local activity (create) → wait for a signal → local activity (confirm) → wait for a
 * signal → end. No search attributes, timers, queries, taxpayer workflow or batch parent: whatever
 * payrun spends beyond this is the price of its guarantees and bookkeeping.
 */
import {
  condition,
  defineSignal,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { PayoutRequest } from '../src/domain';

export type BareEvent = { type: 'ready_to_confirm' } | { type: 'payment_finished'; succeeded: boolean };
export const bareEventSignal = defineSignal<[BareEvent]>('bareEvent');

/** Implemented in bench/compare.ts: the same bank calls the naive script makes, one each. */
export interface BareActivities {
  /** Taxpayer verdict (cached per tax number) where the row needs one, then init/payout(/fiscalization). */
  bareCreate(input: { workflowId: string; request: PayoutRequest }): Promise<{ sessionId: string }>;
  bareConfirm(input: { workflowId: string; sessionId: string }): Promise<void>;
}

const { bareCreate, bareConfirm } = proxyLocalActivities<BareActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});

export async function barePayoutWorkflow(request: PayoutRequest): Promise<'paid' | 'failed'> {
  let ready = false;
  let finished: boolean | undefined;
  setHandler(bareEventSignal, (event) => {
    if (event.type === 'ready_to_confirm') ready = true;
    else finished = event.succeeded;
  });
  const { workflowId } = workflowInfo();
  const { sessionId } = await bareCreate({ workflowId, request });
  // A payout the bank refuses at once finishes without ever being ready.
  await condition(() => ready || finished !== undefined);
  if (finished === undefined) await bareConfirm({ workflowId, sessionId });
  await condition(() => finished !== undefined);
  return finished ? 'paid' : 'failed';
}
