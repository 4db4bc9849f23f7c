import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { lookupPayout } from '../src/batch/lookup';
import { mapLimit } from '../src/map-limit';
import { keyedIdHash, loadWorkflowIdSecret } from '../src/temporal/ids';
import { payoutStatusQuery } from '../workflows/contracts/payout';
import {
  recipientTaskQueue,
  recipientWorkflowId,
  reserveIncomeUpdate,
  type ReserveAnswer,
  type ReserveRequest,
} from '../workflows/contracts/recipient';
import { PAID_STATES } from '../workflows/payout-ending';
import type { PayoutOutcome } from '../workflows/recipient-ledger';

/** Payouts looked up at once when the ledger settles its reservations. */
const LOOKUP_CONCURRENCY = 8;

/** The recipient's workflow id: a keyed hash of the tax number (ids are never encrypted), per task queue. */
export function recipientLedgerId(
  taskQueue: string,
  taxReference: string,
  secret = loadWorkflowIdSecret(),
): string {
  return recipientWorkflowId(keyedIdHash(secret, taskQueue, 'recipient', taxReference).slice(0, 24));
}

/** Ledgers this process has seen running: their next reservation is a plain Update, not a start as well. */
const running = new Set<string>();
const RUNNING_KEPT = 10_000;

/** Reserves a payout's amount in its recipient's ledger, starting the ledger's workflow if it is not running. */
export async function reserveIncome(
  client: Client,
  taskQueue: string,
  taxReference: string,
  req: ReserveRequest,
): Promise<ReserveAnswer> {
  const workflowId = recipientLedgerId(taskQueue, taxReference);
  if (running.has(workflowId)) {
    try {
      return await client.workflow.getHandle(workflowId).executeUpdate(reserveIncomeUpdate, { args: [req] });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      running.delete(workflowId); // closed meanwhile (terminated by hand): start it again below
    }
  }
  const answer = await client.workflow.executeUpdateWithStart(reserveIncomeUpdate, {
    args: [req],
    startWorkflowOperation: new WithStartWorkflowOperation('recipientWorkflow', {
      workflowId,
      taskQueue: recipientTaskQueue(taskQueue),
      args: [{}],
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
  if (running.size >= RUNNING_KEPT) running.clear();
  running.add(workflowId);
  return answer;
}

/** What the ledger's workflow asks of the server: what became of the payouts holding reservations. */
export function createRecipientActivities({ client }: { client: Client }) {
  return {
    async payoutOutcomes({ workflowIds }: { workflowIds: string[] }): Promise<PayoutOutcome[]> {
      return mapLimit(workflowIds, LOOKUP_CONCURRENCY, async (workflowId): Promise<PayoutOutcome> => {
        const lookup = await lookupPayout(client, workflowId);
        switch (lookup.kind) {
          case 'running': {
            // Settled at the bank and only waiting for the recipient bank's confirmation: paid.
            const status = await client.workflow.getHandle(workflowId).query(payoutStatusQuery);
            return PAID_STATES.includes(status.state) && status.state !== 'returned' ? 'paid' : 'open';
          }
          case 'paid':
            return lookup.status.state === 'returned' ? 'returned' : 'paid';
          case 'not_paid':
            return 'not_paid';
          default:
            // In doubt, or not found: the reservation stays until someone settles it (it only errs safe).
            return 'open';
        }
      });
    },
  };
}
