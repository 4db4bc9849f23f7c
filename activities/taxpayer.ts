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

/** Verdicts this worker process has read, by taxpayer workflow id (no tax number as a key). */
const recentVerdicts = new Map<string, TaxpayerVerdict>();
const RECENT_VERDICTS_KEPT = 10_000;
function remember(workflowId: string, verdict: TaxpayerVerdict): void {
  recentVerdicts.delete(workflowId);
  recentVerdicts.set(workflowId, verdict);
  if (recentVerdicts.size > RECENT_VERDICTS_KEPT) recentVerdicts.delete(recentVerdicts.keys().next().value!);
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
  const fresh = (v: TaxpayerVerdict | undefined) =>
    v !== undefined && Date.now() - Date.parse(v.checkedAt) <= ask.maxAgeMs ? v : undefined;
  // A batch pays the same people again and again: a verdict this worker already read is not asked for
  // again (one query per tax number per worker, not one per row to the one taxpayer workflow).
  const known = fresh(recentVerdicts.get(workflowId));
  if (known) return known;
  try {
    const cached = fresh(await client.workflow.getHandle(workflowId).query(taxpayerVerdictQuery));
    if (cached) {
      remember(workflowId, cached);
      return cached;
    }
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
