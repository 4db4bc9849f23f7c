import type { Client } from '@temporalio/client';
import { taxpayerWorkflowId } from '../../temporal/person-ids';
import { payoutWorkflowId } from '../../../workflows/payout/contract';
import {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  type TaxpayerVerdict,
} from '../../../workflows/taxpayer/contract';
import type { PayoutRequest } from '../../domain';
import { mapLimit } from '../../map-limit';

/** A taxpayer's verdict that refused a row: the person may since have linked payrun's partner (or registered). */
const VERDICT_REFUSALS = ['not_linked', 'not_self_employed'];
/** The taxpayer workflow may wait out the bank's 30 s spacing, then the check takes seconds. */
const ANSWER_WITHIN_MS = 120_000;
const POLL_MS = 500;
/** Tax numbers asked at once. */
const CONCURRENCY = 8;

/**
 * Before a retry pays rows the taxpayer check refused, each of those people is checked with the bank
 * again: payouts reuse a verdict for 24 hours, and the verdict that refused the row is what the retry is
 * meant to get past (the person linked payrun's partner since, docs/payouts.md#linking). Asked as a payout
 * asks (a check request to the person's taxpayer workflow, naming the refused row's payout, whose answer
 * signal finds it closed and is dropped), with no verdict taken as fresh, then waited for: a verdict
 * checked after the one it held. The retry's payouts then find that verdict. A check that does not come
 * in time leaves the old verdict (the row is refused again, and can be retried again); this never throws
 * for it. Returns how many people were checked again.
 */
export async function recheckRefusedTaxpayers(
  client: Client,
  taskQueue: string,
  rows: readonly { row: number; request: PayoutRequest }[],
  outcomes: ReadonlyMap<number, { errorCode?: string }>,
  opts: { answerWithinMs?: number } = {},
): Promise<number> {
  const people = new Map<string, string>();
  for (const r of rows)
    if (r.request.selfEmployed && VERDICT_REFUSALS.includes(outcomes.get(r.row)?.errorCode ?? ''))
      people.set(r.request.recipient.taxReference, r.request.reference);
  const deadline = Date.now() + (opts.answerWithinMs ?? ANSWER_WITHIN_MS);
  const answered = await mapLimit([...people], CONCURRENCY, async ([taxReference, reference]) => {
    const workflowId = taxpayerWorkflowId(taxReference, taskQueue);
    const handle = client.workflow.getHandle(workflowId);
    const verdict = () =>
      handle
        .query(taxpayerVerdictQuery)
        .catch((): TaxpayerVerdict | undefined => undefined)
        .then((v) => v ?? undefined);
    // Compared with the workflow's own dates, never this host's clock.
    const before = (await verdict())?.checkedAt ?? '';
    await client.workflow.signalWithStart('taxpayerWorkflow', {
      workflowId,
      taskQueue,
      args: [{ taxReference }],
      signal: taxpayerCheckRequestSignal,
      signalArgs: [{ replyTo: payoutWorkflowId(reference), maxAgeMs: 0 }],
    });
    for (;;) {
      const now = await verdict();
      if (now && now.checkedAt > before) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  });
  return answered.filter(Boolean).length;
}
