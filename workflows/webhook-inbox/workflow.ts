import { continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { bankEventSignal } from '../shared/bank-event-contract';
import { invalidInput } from '../shared/parse';
import { dismissOrphanSignal, inboxQuery, parseWebhookInboxInput, type WebhookInboxInput } from './contract';
import { WebhookInboxRun } from './run';

/**
 * Keeps the bank events no running payrun workflow took: session events are rerouted (the owning
 * workflow may start late, or the visibility store may lag) until the window closes and then kept
 * as orphans for an operator; nominal top-ups and unknown events are kept for reading.
 * Runs forever under WEBHOOK_INBOX_WORKFLOW_ID, continuing as new to keep its history short.
 */
export async function webhookInboxWorkflow(raw: WebhookInboxInput = {}): Promise<never> {
  const parsed = parseWebhookInboxInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  // Only the inbox's own continue-as-new carries state: a hand-started run given some would show
  // operators events the bank never sent, or hide ones it did.
  if (parsed.value.state !== undefined && workflowInfo().continuedFromExecutionRunId === undefined)
    throw invalidInput(
      'state: expected no state when starting the inbox (only its continue-as-new carries it)',
    );
  const run = new WebhookInboxRun(parsed.value);
  setHandler(bankEventSignal, (event) => run.accept(event));
  setHandler(dismissOrphanSignal, (dismissal) => run.dismiss(dismissal));
  setHandler(inboxQuery, () => run.view());
  return continueAsNew<typeof webhookInboxWorkflow>(await run.run());
}
