import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  bankEventSignal,
  batchFundsChangedSignal,
  WEBHOOK_INBOX_WORKFLOW_ID,
  type BankEventSignal,
  type WebhookInboxInput,
} from '../../workflows/definitions';
import { webhookInboxWorkflow } from '../../workflows/webhook-inbox';
import { isRoutable } from './signal';
import {
  batchesAwaitingFundsQuery,
  metadataTargets,
  sessionOwnersQuery,
  sessionVisibilityQuery,
} from './targets';

/** More running workflows than this for one bank session means something else is wrong. */
const MAX_VISIBILITY_TARGETS = 20;

export interface WorkflowRouting {
  /** Workflows that took the signal (it is in their history). */
  delivered: string[];
  /** Named by metadata or visibility but gone (never started, or already closed). */
  skipped: string[];
}

/** Running workflows that upserted PayrunSessionId = sessionId (eventually consistent). */
export async function workflowsForSession(
  client: Client,
  sessionId: string,
  taskQueue?: string,
): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: sessionVisibilityQuery(sessionId, taskQueue) })) {
    ids.push(wf.workflowId);
    if (ids.length >= MAX_VISIBILITY_TARGETS) break;
  }
  return ids;
}

/**
 * Signals every payrun workflow an event belongs to: those named in the echoed metadata (known at
 * once), and when needed those the visibility store finds by session id (may lag a fresh session).
 * A workflow that does not exist or has closed is skipped; any other Temporal error is thrown,
 * so the caller can answer 503 and the bank resends. Used by the ingress and the inbox's reroute.
 */
export async function routeToWorkflows(
  client: Client,
  evt: BankEventSignal,
  opts: { exclude?: string; taskQueue?: string } = {},
): Promise<WorkflowRouting> {
  if (!isRoutable(evt)) return { delivered: [], skipped: [] };
  const delivered: string[] = [];
  const skipped: string[] = [];
  const deliver = async (ids: Iterable<string>) => {
    for (const workflowId of ids) {
      if (workflowId === opts.exclude || delivered.includes(workflowId) || skipped.includes(workflowId))
        continue;
      try {
        await client.workflow.getHandle(workflowId).signal(bankEventSignal, evt);
        delivered.push(workflowId);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        skipped.push(workflowId);
      }
    }
  };
  await deliver(metadataTargets(evt.session));
  // The echoed metadata names the payout a session event belongs to. A visibility look-up (costly on
  // a large store, and eventually consistent) is needed only when it names no running workflow, or
  // for events other workflows may also wait for: a refund's payment_refunded, confirmation_payout.
  if (delivered.length === 0 || evt.type === 'payment_refunded' || evt.type === 'confirmation_payout') {
    await deliver(await workflowsForSession(client, evt.sessionId!, opts.taskQueue));
  }
  return { delivered, skipped };
}

const MAX_OWNERS = 10;

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
): Promise<string[]> {
  const owners: string[] = [];
  for (const workflowId of named) {
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      if (d.status.name !== 'RUNNING') owners.push(workflowId);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err; // never started: not late, maybe early
    }
  }
  if (owners.length > 0 || !evt.sessionId) return owners;
  for await (const wf of client.workflow.list({ query: sessionOwnersQuery(evt.sessionId, taskQueue) })) {
    if (wf.status.name !== 'RUNNING') owners.push(wf.workflowId);
    if (owners.length >= MAX_OWNERS) break;
  }
  return owners;
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
  await client.workflow.signalWithStart(webhookInboxWorkflow, {
    workflowId,
    taskQueue: inbox.taskQueue,
    signal: bankEventSignal,
    signalArgs: [evt],
    args: [inbox.input ?? {}],
  });
  return workflowId;
}

export interface RoutingOutcome extends WorkflowRouting {
  outcome: 'delivered' | 'inbox' | 'late';
  /** For a late event: the closed workflows it belonged to. */
  lateFor?: string[];
  /** Batches waiting for funds that a nominal_topup woke. */
  nudged?: string[];
}

/** The ingress's whole routing rule: to the owning workflows, or else to the inbox. */
export async function routeBankEvent(
  client: Client,
  inbox: InboxTarget,
  evt: BankEventSignal,
): Promise<RoutingOutcome> {
  const routed = await routeToWorkflows(client, evt, { taskQueue: inbox.taskQueue });
  if (routed.delivered.length > 0) return { outcome: 'delivered', ...routed };
  const lateFor = isRoutable(evt) ? await closedOwners(client, evt, routed.skipped, inbox.taskQueue) : [];
  // A confirmation_payout after its payout closed changes nothing (the money settled by the bank's own
  // word): it is answered 200, logged and counted, and never costs the one inbox workflow a signal per
  // paid row. A late return (payment_refunded) still goes to the inbox: accounting must act on it.
  if (evt.type === 'confirmation_payout' && lateFor.length > 0)
    return { outcome: 'late', ...routed, lateFor };
  await deliverToInbox(client, inbox, lateFor.length > 0 ? { ...evt, lateFor } : evt);
  // The top-up is recorded first (above); batches short of funds may now go on.
  const nudged = evt.type === 'nominal_topup' ? await nudgeBatchesAwaitingFunds(client, inbox.taskQueue) : [];
  return { outcome: 'inbox', ...routed, nudged };
}
