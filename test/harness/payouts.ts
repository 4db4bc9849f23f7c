import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { PayoutRequest } from '../../src/domain';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import {
  payoutWorkflowId,
  type PayoutInput,
  type PayoutOptions,
  type PayoutStatus,
} from '../../workflows/payout/contract';
import { payoutWorkflow } from '../../workflows/payout/workflow';
import type { Stack } from './stack';

export function payoutRequest(overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    reference: `t-${randomUUID()}`,
    recipient: {
      lastName: 'Иванова',
      firstName: 'Анна',
      middleName: 'Петровна',
      taxReference: TEST_INNS.SELF_EMPLOYED_LINKED,
    },
    method: { type: 'card', cardNumber: TEST_CARDS.SUCCESS },
    amount: 150_000,
    currency: 'rub',
    serviceName: 'Вёрстка макета',
    selfEmployed: true,
    ...overrides,
  };
}

/** Options that keep tests quick: poll soon when a webhook is missing. */
export const FAST: PayoutOptions = { pollAfterMs: 1_000 };

export async function startPayout(
  stack: Stack,
  request: PayoutRequest,
  options: PayoutOptions = FAST,
  batchId?: string,
) {
  const input: PayoutInput = { request, options, ...(batchId ? { batchId } : {}) };
  return stack.client.workflow.start(payoutWorkflow, {
    taskQueue: stack.taskQueue,
    workflowId: payoutWorkflowId(request.reference),
    args: [input],
  });
}

/** The final status whether the workflow completed (paid) or failed (not paid). */
export async function outcome(handle: WorkflowHandle<typeof payoutWorkflow>): Promise<PayoutStatus> {
  try {
    return await handle.result();
  } catch (err) {
    if (
      err instanceof WorkflowFailedError &&
      err.cause instanceof ApplicationFailure &&
      err.cause.details?.[0]
    ) {
      return err.cause.details[0] as PayoutStatus;
    }
    throw err;
  }
}

/** Ledger entries of executed payouts for one reference (the sandbox is the bank: what it paid is what was paid). */
export function paidEntries(stack: Stack, reference: string) {
  return stack.sandbox.ledger().filter((e) => e.kind === 'payout' && JSON.stringify(e).includes(reference));
}

/** How a run failed: its ApplicationFailure type, or undefined when it completed. */
export async function failureType(handle: WorkflowHandle): Promise<string | undefined> {
  try {
    await handle.result();
    return undefined;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure)
      return err.cause.type ?? undefined;
    throw err;
  }
}

/** How many requests the sandbox has answered on paths containing `path` (its admin counter). */
export async function requestsTo(stack: Stack, path: string): Promise<number> {
  const res = await fetch(`${stack.sandbox.url}/__admin/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([k]) => k.includes(path))
    .reduce((sum, [, n]) => sum + n, 0);
}
