import { recipientWorkflowId } from '../../workflows/recipient-ledger/contract';
import { taxpayerWorkflowId as taxpayerIdOf } from '../../workflows/taxpayer/contract';
import { keyedIdHash, loadWorkflowIdSecret } from './ids';

// The ids of the workflows kept per person (one per tax number): the worker's activities start and
// signal them, and the commands (dry run, retry, headroom, recipient show) read them, so they live
// here rather than in activities/, which the commands must not import.

/**
 * Tax numbers stay out of workflow ids (they show in the UI, in visibility and in logs, never
 * encrypted). A plain hash of an INN can be reversed by trying every INN, so the id is an HMAC keyed by
 * PAYRUN_WORKFLOW_ID_SECRET (src/temporal/ids.ts). The task queue is part of it so two payrun
 * deployments on one namespace never share verdicts.
 */
export function taxpayerWorkflowId(
  taxReference: string,
  taskQueue: string,
  secret: Buffer = loadWorkflowIdSecret(),
): string {
  return taxpayerIdOf(keyedIdHash(secret, taskQueue, taxReference));
}

/** The recipient's workflow id: a keyed hash of the tax number (ids are never encrypted), per task queue. */
export function recipientLedgerId(
  taskQueue: string,
  taxReference: string,
  secret = loadWorkflowIdSecret(),
): string {
  return recipientWorkflowId(keyedIdHash(secret, taskQueue, 'recipient', taxReference));
}
