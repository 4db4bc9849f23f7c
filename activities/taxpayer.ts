import type { Client } from '@temporalio/client';
import { taxpayerWorkflowId } from '../src/temporal/person-ids';
import {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  verdictRefusal,
  type TaxpayerVerdict,
} from '../workflows/taxpayer/contract';
import { parseTaxpayerVerdict, verdictAgeMs } from '../workflows/taxpayer/contract';

/**
 * Verdicts this worker process has read, by taxpayer workflow id (no tax number as a key). Bounded
 * twice: at most RECENT_VERDICTS_KEPT entries, and each is reused for at most REUSE_FOR_MS, after which
 * the workflow is asked again — so whatever a run answered stops being reused within a minute of its
 * being terminated or replaced, whatever date its verdict claims (and a future date is never taken).
 */
const recentVerdicts = new Map<string, { verdict: TaxpayerVerdict; readAt: number }>();
const RECENT_VERDICTS_KEPT = 10_000;
const REUSE_FOR_MS = 60_000;
function remember(workflowId: string, verdict: TaxpayerVerdict): void {
  recentVerdicts.delete(workflowId);
  recentVerdicts.set(workflowId, { verdict, readAt: Date.now() });
  if (recentVerdicts.size > RECENT_VERDICTS_KEPT) recentVerdicts.delete(recentVerdicts.keys().next().value!);
}
function recall(workflowId: string): TaxpayerVerdict | undefined {
  const entry = recentVerdicts.get(workflowId);
  if (!entry) return undefined;
  if (Date.now() - entry.readAt > REUSE_FOR_MS) {
    recentVerdicts.delete(workflowId);
    return undefined;
  }
  return entry.verdict;
}

/** A verdict as the workflow answered it, if it is one: well formed, not dated in the future, fresh enough. */
function freshVerdict(answer: unknown, maxAgeMs: number): TaxpayerVerdict | undefined {
  const parsed = parseTaxpayerVerdict(answer);
  if (!parsed.ok) return undefined;
  const age = verdictAgeMs(parsed.value, Date.now());
  return age !== undefined && age <= maxAgeMs ? parsed.value : undefined;
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
  // A batch pays the same people again and again: a verdict this worker read a moment ago is not asked
  // for again (one query per tax number per worker a minute, not one per row to the one taxpayer workflow).
  const known = recall(workflowId);
  const reused = known && freshVerdict(known, ask.maxAgeMs);
  if (reused) return reused;
  try {
    // The latest run answers (a closed one by replay): it holds only what its own checks found, since
    // the workflow refuses any verdict in its input that its own continue-as-new did not carry.
    const cached = freshVerdict(
      await client.workflow.getHandle(workflowId).query(taxpayerVerdictQuery),
      ask.maxAgeMs,
    );
    if (cached) {
      // A refusal is not reused here: the person may link payrun's partner any moment, and a retry has
      // the bank asked again (src/batch/commands/retry-verdicts.ts), which only the workflow's answer shows.
      if (!verdictRefusal(cached)) remember(workflowId, cached);
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
