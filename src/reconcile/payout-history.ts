/**
 * What a payout's own history holds that reconciliation and `payrun payout proof` read, decrypted
 * through the client's payload codec: its start input (who was paid) and the `bankEvent` signals that
 * carried a `payment_finished` as the bank signed it (the raw body and X-PARTNER-SIGN, verbatim).
 * Nothing here believes a body: a signal anyone with Temporal's signal right can send; whoever uses a
 * body checks its signature with the bank's key first (src/cli/payout-proof.ts).
 */
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { bankEventSignal, type BankEventSignal } from '../../workflows/shared/bank-event-contract';
import type { PayoutInput } from '../../workflows/payout/contract';

/** A `payment_finished` as signalled: Base64 body, Base64 signature, when the ingress received it. */
export interface SignedFinish {
  body: string;
  signature: string;
  receivedAt: string;
}

export interface PayoutHistory {
  input?: PayoutInput;
  finishes: SignedFinish[];
}

/** More candidates than this for one run means someone is flooding it: the first ones are kept. */
const MAX_FINISHES = 5;

/**
 * Reads runs of a payout's workflow, oldest run first: `runs: 'latest'` the current run only, `'all'`
 * every run (a payout reconciled by hand has more than one). `maxPages` bounds a run flooded with
 * signals (a page holds up to 1 000 events; a payout's payment_finished comes within its first few dozen).
 */
export async function readPayoutHistory(
  client: Client,
  workflowId: string,
  opts: { runs: 'latest' | 'all'; maxPages?: number },
): Promise<PayoutHistory> {
  const runs: (string | undefined)[] = [];
  if (opts.runs === 'latest') runs.push(undefined);
  else {
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runs.push(wf.runId);
    runs.reverse();
  }
  const found: PayoutHistory = { finishes: [] };
  const decode = <T>(payloads: Parameters<typeof decodeFromPayloadsAtIndex>[2]) =>
    decodeFromPayloadsAtIndex<T>(client.options.loadedDataConverter, 0, payloads);
  for (const runId of runs) {
    let nextPageToken: Uint8Array | undefined;
    let pages = 0;
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, ...(runId ? { runId } : {}) },
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const event of page.history?.events ?? []) {
        const started = event.workflowExecutionStartedEventAttributes;
        if (started) found.input = await decode<PayoutInput>(started.input?.payloads);
        const signal = event.workflowExecutionSignaledEventAttributes;
        if (
          signal?.signalName !== bankEventSignal.name ||
          found.finishes.length >= MAX_FINISHES * runs.length
        )
          continue;
        const evt = await decode<BankEventSignal>(signal.input?.payloads);
        if (evt?.type === 'payment_finished' && evt.signed)
          found.finishes.push({ ...evt.signed, receivedAt: evt.receivedAt });
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken && (opts.maxPages === undefined || ++pages < opts.maxPages));
  }
  return found;
}
