import { ApplicationFailure, Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { BankClient } from '../src/bank';
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
import { callBank } from './failures';
import { idempotencyKey } from './idempotency';
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

/**
 * The clock a reservation is dated by: the Moscow year and month it counts in are this moment's. The
 * worker's own clock. Only a test replaces it (setLedgerClockForTests, from code in the worker's own
 * process) to pay on either side of a Moscow midnight: no setting, file, flag or workflow input reaches it.
 */
let ledgerClock = (): number => Date.now();
export function setLedgerClockForTests(clock?: () => number): void {
  ledgerClock = clock ?? (() => Date.now());
}

/** Ledgers this process has seen running: their next reservation is a plain Update, not a start as well. */
const running = new Set<string>();
const RUNNING_KEPT = 10_000;

/**
 * Reserves a payout's amount in its recipient's ledger, starting the ledger's workflow if it is not running.
 * The reservation is dated here, by the ledger's clock, whatever `at` the caller gave.
 */
export async function reserveIncome(
  client: Client,
  taskQueue: string,
  taxReference: string,
  req: ReserveRequest,
): Promise<ReserveAnswer> {
  const workflowId = recipientLedgerId(taskQueue, taxReference);
  req = { ...req, at: new Date(ledgerClock()).toISOString() };
  if (running.has(workflowId)) {
    try {
      return await client.workflow.getHandle(workflowId).executeUpdate(reserveIncomeUpdate, { args: [req] });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      running.delete(workflowId); // closed meanwhile (terminated by hand): start it again below
    }
  }
  const answer = await updateLedgerWithStart(client, taskQueue, taxReference, reserveIncomeUpdate, [req]);
  if (running.size >= RUNNING_KEPT) running.clear();
  running.add(workflowId);
  return answer;
}

/** Sends an Update to the person's ledger, starting the ledger's workflow first if it is not running. */
export function updateLedgerWithStart<Ret, Args extends unknown[]>(
  client: Client,
  taskQueue: string,
  taxReference: string,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
): Promise<Ret> {
  return client.workflow.executeUpdateWithStart(update, {
    args,
    startWorkflowOperation: new WithStartWorkflowOperation('recipientWorkflow', {
      workflowId: recipientLedgerId(taskQueue, taxReference),
      taskQueue: recipientTaskQueue(taskQueue),
      args: [{}],
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
}

export interface LinkRequestInput {
  taxReference: string;
  returnUrl?: string;
  /** The ledger's count of link requests so far, plus one: the same attempt repeats the same bank request. */
  attempt: number;
}

/**
 * What the ledger's workflow asks of the server (what became of the payouts holding reservations) and of
 * the bank (a link request for its person).
 */
export function createRecipientActivities({
  client,
  bank,
  taskQueue,
}: {
  client: Client;
  bank: BankClient;
  taskQueue: string;
}) {
  return {
    /**
     * Asks the bank to send the person a link request (self_employed/onboarding/create, D22). Keyed by the
     * ledger and the attempt: a retry after a lost answer gets the bank's first answer, not a second request.
     */
    async requestSelfEmployedLink(input: LinkRequestInput) {
      const ledgerId = Context.current().info.workflowExecution?.workflowId;
      if (ledgerId !== recipientLedgerId(taskQueue, input.taxReference))
        throw ApplicationFailure.nonRetryable(
          "the tax number is not this ledger's person",
          'wrong_recipient',
        );
      const key = idempotencyKey('ln', ledgerId, String(input.attempt), input.returnUrl ?? '');
      const res = await callBank('self_employed/onboarding/create', () =>
        bank.selfEmployed.onboardingCreate(
          { tax_reference: input.taxReference, ...(input.returnUrl ? { return_url: input.returnUrl } : {}) },
          { idempotencyKey: key, signal: Context.current().cancellationSignal, maxRetries: 0 },
        ),
      );
      if (res.status !== 'ok')
        throw ApplicationFailure.nonRetryable(`the bank answered ${res.status}`, 'link_request_refused');
      return {
        ...(res.request_id ? { requestId: res.request_id } : {}),
        ...(res.url ? { url: res.url } : {}),
        ...(res.expires_at && !Number.isNaN(Date.parse(res.expires_at)) ? { expiresAt: res.expires_at } : {}),
      };
    },

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
