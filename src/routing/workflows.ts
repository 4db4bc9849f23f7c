import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { bankEventSignal, type BankEventSignal } from '../../workflows/shared/bank-event-contract';
import { metadataTargets, sessionVisibilityQuery } from './targets';

// The rule that says which running payrun workflows a bank event belongs to, in one place: the ingress
// applies it to every webhook, and the webhook inbox's reroute activity applies it again later. It
// knows Temporal and the event, nothing of HTTP.

/** Events that can belong to a payout or refund workflow; the rest go straight to the inbox. */
export function isRoutable(evt: BankEventSignal): boolean {
  return evt.type !== 'nominal_topup' && evt.type !== 'unknown' && evt.sessionId !== undefined;
}

/** The server's answer to a signal beyond `history.maximumSignalsPerExecution` (10 000 a run by default). */
export function takesNoMoreSignals(err: unknown): boolean {
  const cause = (err as { cause?: { details?: unknown; message?: unknown } } | undefined)?.cause;
  return /exceeded workflow execution limit for signal events/i.test(
    String(cause?.details ?? cause?.message ?? ''),
  );
}

/** More running workflows than this for one bank session means something else is wrong. */
const MAX_VISIBILITY_TARGETS = 20;

export interface WorkflowRouting {
  /** Workflows that took the signal (it is in their history). */
  delivered: string[];
  /** Named by metadata or visibility but gone (never started, or already closed). */
  skipped: string[];
  /** Visibility queries it took (0 when metadata or a remembered owner named the workflows). */
  lookups: number;
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
  opts: {
    exclude?: string;
    taskQueue?: string;
    /** Workflows that earlier signed events of this session were delivered to (the ingress's memory). */
    knownOwners?: readonly string[];
  } = {},
): Promise<WorkflowRouting> {
  if (!isRoutable(evt)) return { delivered: [], skipped: [], lookups: 0 };
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
        // A run past Temporal's signal-count limit (a flood of forged signals) takes no more: the event
        // goes where it is kept instead (the ingress's inbox), not back to the bank as 503 for ever.
        if (!(err instanceof WorkflowNotFoundError) && !takesNoMoreSignals(err)) throw err;
        skipped.push(workflowId);
      }
    }
  };
  const named = [...metadataTargets(evt.session), ...(opts.knownOwners ?? [])];
  await deliver(named);
  // The echoed metadata names the payout a session event belongs to. A visibility look-up (costly on
  // a large store, and eventually consistent) is needed only when it names no running workflow, or for
  // payment_refunded, which a refund workflow may also wait for. A confirmation_payout carries no
  // metadata; only the payout that created its session waits for it, so once that payout is known
  // (remembered from the session's earlier events) visibility has nothing to add, running or closed.
  const ownerKnown = evt.type === 'confirmation_payout' && named.length > 0;
  let lookups = 0;
  if ((delivered.length === 0 && !ownerKnown) || evt.type === 'payment_refunded') {
    lookups++;
    await deliver(await workflowsForSession(client, evt.sessionId!, opts.taskQueue));
  }
  return { delivered, skipped, lookups };
}
