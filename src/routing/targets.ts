import type { PaymentSession } from '../bank/types/session';
import { METADATA_KEY, type PayrunMetadata } from './metadata';

/**
 * Where a bank event should go, read from what payrun itself sent: every bank request carries
 * `metadata: { payrun: { workflow_id, … } }`, echoed back on the session and its operations.
 * The bank allows any JSON value as metadata, and may echo an object as a JSON string.
 */
export function payrunMetadataOf(metadata: unknown): PayrunMetadata | undefined {
  let value = metadata;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  let ours = (value as Record<string, unknown>)[METADATA_KEY];
  if (typeof ours === 'string') {
    try {
      ours = JSON.parse(ours);
    } catch {
      return undefined;
    }
  }
  if (!ours || typeof ours !== 'object') return undefined;
  const workflowId = (ours as Record<string, unknown>).workflow_id;
  if (typeof workflowId !== 'string' || workflowId.trim() === '') return undefined;
  return ours as PayrunMetadata;
}

/**
 * Workflow ids named by metadata on the session, its payouts (`payments`), its payments
 * (`acquiring_payments`) and their refunds (a refund request carries the refund workflow's
 * metadata). Deduplicated, in the order found.
 */
/** The session's payout said it waits for no confirmation_payout (metadata `ends_at_result`, ours only). */
export function endsAtResult(session: PaymentSession | undefined): boolean {
  if (!session) return false;
  const ours = [session.metadata, ...(session.payments ?? []).map((p) => p.metadata)]
    .map(payrunMetadataOf)
    .filter((m) => m !== undefined);
  return ours.length > 0 && ours.every((m) => m.ends_at_result === true);
}

export function metadataTargets(session: PaymentSession | undefined): string[] {
  if (!session) return [];
  const found = new Set<string>();
  const add = (metadata: unknown) => {
    const m = payrunMetadataOf(metadata);
    if (m) found.add(m.workflow_id);
  };
  add(session.metadata);
  for (const payout of session.payments ?? []) add(payout.metadata);
  for (const payment of session.acquiring_payments ?? []) {
    add(payment.metadata);
    for (const refund of payment.refunds ?? []) add(refund.metadata);
  }
  return [...found];
}

/** A value inside a double-quoted visibility-query string: bank data never becomes query syntax. */
function quote(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** The visibility query for running workflows that upserted this bank session id. */
export function sessionVisibilityQuery(sessionId: string, taskQueue?: string): string {
  // Scoped to this deployment's task queue: another payrun (or another bank sandbox) on the same
  // namespace may use the same session ids.
  const scope = taskQueue ? ` AND TaskQueue = "${quote(taskQueue)}"` : '';
  return `PayrunSessionId = "${quote(sessionId)}" AND ExecutionStatus = "Running"${scope}`;
}

/** Running batches of this deployment that wait for the deposit to grow. */
export function batchesAwaitingFundsQuery(taskQueue: string): string {
  return `WorkflowType = "batchWorkflow" AND PayrunState = "awaiting_funds" AND ExecutionStatus = "Running" AND TaskQueue = "${quote(taskQueue)}"`;
}

/** Every workflow (any status) of this deployment that recorded the session: finds closed owners. */
export function sessionOwnersQuery(sessionId: string, taskQueue: string): string {
  return `PayrunSessionId = "${quote(sessionId)}" AND TaskQueue = "${quote(taskQueue)}"`;
}
