import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { bankEventSignal, type BankEventSignal } from '../../workflows/shared/bank-event-contract';
import { batchFundsChangedSignal } from '../../workflows/batch/contract';
import {
  WEBHOOK_INBOX_WORKFLOW_TYPE,
  WEBHOOK_INBOX_WORKFLOW_ID,
  type WebhookInboxInput,
} from '../../workflows/webhook-inbox/contract';
import { batchesAwaitingFundsQuery, sessionOwnersQuery } from '../routing/targets';
import { startPayoutReturn } from '../routing/returns';
import { isRoutable, routeToWorkflows, type WorkflowRouting } from '../routing/workflows';

const MAX_OWNERS = 10;
const isPayoutId = (id: string) => id.startsWith('payout-');

/**
 * The workflows an undelivered event belongs to that exist but have closed (a confirmation_payout
 * after its payout finished, a return after the payout stopped watching). Such an event is late, not
 * lost: the inbox records it for operators instead of rerouting it for minutes.
 */
export async function closedOwners(
  client: Client,
  evt: BankEventSignal,
  named: string[],
  taskQueue: string,
): Promise<{ owners: string[]; lookups: number }> {
  const owners: string[] = [];
  for (const workflowId of named) {
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      if (d.status.name !== 'RUNNING') owners.push(workflowId);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err; // never started: not late, maybe early
    }
  }
  if (owners.length > 0 || !evt.sessionId) return { owners, lookups: 0 };
  for await (const wf of client.workflow.list({ query: sessionOwnersQuery(evt.sessionId, taskQueue) })) {
    if (wf.status.name !== 'RUNNING') owners.push(wf.workflowId);
    if (owners.length >= MAX_OWNERS) break;
  }
  return { owners, lookups: 1 };
}

/** Signals every batch waiting for funds to re-check the deposit now. */
export async function nudgeBatchesAwaitingFunds(client: Client, taskQueue: string): Promise<string[]> {
  const nudged: string[] = [];
  for await (const wf of client.workflow.list({ query: batchesAwaitingFundsQuery(taskQueue) })) {
    try {
      await client.workflow
        .getHandle(wf.workflowId)
        .signal(batchFundsChangedSignal, { reason: 'nominal_topup' });
      nudged.push(wf.workflowId);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return nudged;
}

export interface InboxTarget {
  taskQueue: string;
  workflowId?: string;
  /** Used only when this signal starts the inbox. */
  input?: WebhookInboxInput;
}

/** Durable hand-off of an event nobody took: starts the inbox if it is not running. */
export async function deliverToInbox(
  client: Client,
  inbox: InboxTarget,
  evt: BankEventSignal,
): Promise<string> {
  const workflowId = inbox.workflowId ?? WEBHOOK_INBOX_WORKFLOW_ID;
  // By type name: the ingress never loads workflow code.
  await client.workflow.signalWithStart(WEBHOOK_INBOX_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: inbox.taskQueue,
    signal: bankEventSignal,
    signalArgs: [evt],
    args: [inbox.input ?? {}],
  });
  return workflowId;
}

export interface RoutingOutcome extends WorkflowRouting {
  outcome: 'delivered' | 'inbox' | 'late' | 'returned';
  /** For a late event: the closed workflows it belonged to. */
  lateFor?: string[];
  /** Batches waiting for funds that a nominal_topup woke. */
  nudged?: string[];
}

/**
 * The ingress's whole routing rule: to the owning workflows, or else to the inbox. `knownOwners`: the
 * workflows earlier signed events of the same session went to (a hint that spares visibility queries).
 */
export async function routeBankEvent(
  client: Client,
  inbox: InboxTarget,
  evt: BankEventSignal,
  knownOwners: readonly string[] = [],
): Promise<RoutingOutcome> {
  const routed = await routeToWorkflows(client, evt, { taskQueue: inbox.taskQueue, knownOwners });
  if (routed.delivered.length > 0) return { outcome: 'delivered', ...routed };
  // A remembered owner took this session's earlier events, so it existed: not taking this one means it
  // has closed, with no need to ask the server.
  const knownClosed = routed.skipped.filter((id) => knownOwners.includes(id));
  const closed = !isRoutable(evt)
    ? { owners: [], lookups: 0 }
    : knownClosed.length > 0
      ? { owners: knownClosed, lookups: 0 }
      : await closedOwners(client, evt, routed.skipped, inbox.taskQueue);
  const lateFor = closed.owners;
  routed.lookups += closed.lookups;
  // A confirmation_payout after its payout closed changes nothing (the money settled by the bank's own
  // word): it is answered 200, logged and counted, and never costs the one inbox workflow a signal per
  // paid row. A late return (payment_refunded) still goes to the inbox: accounting must act on it.
  if (evt.type === 'confirmation_payout' && lateFor.length > 0)
    return { outcome: 'late', ...routed, lateFor };
  // A signed return of a closed payout starts (or reaches) the session's one return workflow, which
  // checks the signature itself before it marks anything; the inbox's late list never holds it.
  if (evt.type === 'payment_refunded' && evt.signed && evt.sessionId && lateFor.some(isPayoutId)) {
    const started = await startPayoutReturn(client, inbox.taskQueue, evt.sessionId, {
      source: 'webhook',
      eventId: evt.id,
      receivedAt: evt.receivedAt,
      signed: evt.signed,
    });
    return { outcome: 'returned', ...routed, lateFor, delivered: [...routed.delivered, started.workflowId] };
  }
  await deliverToInbox(client, inbox, lateFor.length > 0 ? { ...evt, lateFor } : evt);
  // The top-up is recorded first (above); batches short of funds may now go on.
  const nudged = evt.type === 'nominal_topup' ? await nudgeBatchesAwaitingFunds(client, inbox.taskQueue) : [];
  return { outcome: 'inbox', ...routed, nudged };
}
