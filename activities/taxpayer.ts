import type { Client } from '@temporalio/client';
import { keyedIdHash, loadWorkflowIdSecret } from '../src/temporal/ids';
import {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  type TaxpayerVerdict,
} from '../workflows/contracts/taxpayer';

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
  return `taxpayer-${keyedIdHash(secret, taskQueue, taxReference).slice(0, 24)}`;
}

export interface TaxpayerAsk {
  taxReference: string;
  /** The payout that waits: the taxpayer workflow answers it with a signal. */
  replyTo: string;
  maxAgeMs: number;
}

/**
 * The per-tax-number workflow's verdict when it holds a fresh one (a query: no signal round trip in the
 * payout's history); otherwise asks it for one (signal-with-start), and it answers the payout by signal.
 */
export async function askTaxpayerVerdict(
  client: Client,
  taskQueue: string,
  ask: TaxpayerAsk,
): Promise<TaxpayerVerdict | undefined> {
  const workflowId = taxpayerWorkflowId(ask.taxReference, taskQueue);
  try {
    const cached = await client.workflow.getHandle(workflowId).query(taxpayerVerdictQuery);
    if (cached && Date.now() - Date.parse(cached.checkedAt) <= ask.maxAgeMs) return cached;
  } catch {
    // Not running (it closes when idle, or never started): the request below starts it.
  }
  await client.workflow.signalWithStart('taxpayerWorkflow', {
    workflowId,
    taskQueue,
    args: [{ taxReference: ask.taxReference }],
    signal: taxpayerCheckRequestSignal,
    signalArgs: [{ replyTo: ask.replyTo, maxAgeMs: ask.maxAgeMs }],
  });
  return undefined;
}
