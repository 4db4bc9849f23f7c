/**
 * The dry run's taxpayer checks made by the per-tax-number taxpayer workflows the payouts ask, so a
 * submit right after a dry run reuses their verdicts instead of asking the bank again (issue 25: the
 * bank allows one check per tax number per 30 s, which a submit right after a dry run waited out).
 * The workflow holds only verdicts its own checks found, so the dry run asks it as a payout does: a
 * check request naming the payout the row will start (payout-<reference>; its answer signal finds no
 * such workflow yet and is dropped), then reads the verdict with the workflow's query.
 */
import type { Client } from '@temporalio/client';
import { taxpayerWorkflowId } from '../../temporal/person-ids';
import { payoutWorkflowId } from '../../../workflows/payout/contract';
import {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  type TaxpayerVerdict,
} from '../../../workflows/taxpayer/contract';

/** A payout reuses a verdict this old (its default taxpayerCheckMaxAgeMs); the dry run judges as it will. */
export const VERDICT_MAX_AGE_MS = 24 * 3_600_000;
/** The workflow may wait out the bank's 30 s spacing, then the check takes seconds. */
const ANSWER_WITHIN_MS = 90_000;
const POLL_MS = 500;

export interface TaxpayerAsk {
  taxReference: string;
  /** A row's payout reference with this tax number. */
  reference: string;
}

/** The verdict of the tax number's taxpayer workflow, asked for as a payout asks; undefined when none came in time. */
export async function verdictFromTaxpayerWorkflow(
  client: Client,
  taskQueue: string,
  ask: TaxpayerAsk,
  opts: { answerWithinMs?: number; pollMs?: number } = {},
): Promise<TaxpayerVerdict | undefined> {
  const workflowId = taxpayerWorkflowId(ask.taxReference, taskQueue);
  const fresh = (v: TaxpayerVerdict | undefined) =>
    v !== undefined && Date.now() - Date.parse(v.checkedAt) <= VERDICT_MAX_AGE_MS ? v : undefined;
  const handle = client.workflow.getHandle(workflowId);
  const known = fresh(await handle.query(taxpayerVerdictQuery).catch(() => undefined));
  if (known) return known;
  await client.workflow.signalWithStart('taxpayerWorkflow', {
    workflowId,
    taskQueue,
    args: [{ taxReference: ask.taxReference }],
    signal: taxpayerCheckRequestSignal,
    signalArgs: [{ replyTo: payoutWorkflowId(ask.reference), maxAgeMs: VERDICT_MAX_AGE_MS }],
  });
  const deadline = Date.now() + (opts.answerWithinMs ?? ANSWER_WITHIN_MS);
  for (;;) {
    const verdict = fresh(await handle.query(taxpayerVerdictQuery).catch(() => undefined));
    if (verdict) return verdict;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? POLL_MS));
  }
}
