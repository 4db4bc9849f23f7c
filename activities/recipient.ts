import { ApplicationFailure, Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { BankClient } from '../src/bank';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { lookupPayout } from '../src/batch/lookup';
import { readHistory } from '../src/batch/run-history';
import { mapLimit } from '../src/map-limit';
import { keyedIdHash, loadWorkflowIdSecret } from '../src/temporal/ids';
import { payoutStatusQuery } from '../workflows/contracts/payout';
import {
  recipientTaskQueue,
  recipientWorkflowId,
  reserveIncomeUpdate,
  type PreviousLedger,
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

    /**
     * What this ledger's previous run held, when the current run was not continued from it (someone
     * terminated it): the state that run started from (carried over continue-as-new, or rebuilt the same
     * way) and every reservation it accepted. Read from the server's record of that run; none: {}.
     */
    async previousLedger(): Promise<PreviousLedger> {
      const run = Context.current().info.workflowExecution;
      if (!run) throw ApplicationFailure.nonRetryable('previousLedger runs only for a ledger workflow');
      return readPreviousLedger(client, run.workflowId, run.runId);
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

/** The newest closed run of the ledger other than `currentRunId`, read as PreviousLedger says. */
export async function readPreviousLedger(
  client: Client,
  workflowId: string,
  currentRunId: string,
): Promise<PreviousLedger> {
  let previous: { runId: string; startTime: Date } | undefined;
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    // Not by status: visibility may still list a run terminated a moment ago as running, and the one
    // running run is this one.
    if (run.runId === currentRunId) continue;
    if (!previous || run.startTime > previous.startTime)
      previous = { runId: run.runId, startTime: run.startTime };
  }
  if (!previous) return { reservations: [] };
  const events = await readHistory(client, workflowId, previous.runId);
  const decode = (payloads: Parameters<typeof decodeFromPayloadsAtIndex>[2]) =>
    decodeFromPayloadsAtIndex<unknown>(client.options.loadedDataConverter, 0, payloads);
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  let base: PreviousLedger = { reservations: [] };
  // Its state as the workflow itself takes it: only what its own continue-as-new carried over...
  if (started?.continuedExecutionRunId) {
    const input = (await decode(started.input?.payloads)) as { state?: unknown } | undefined;
    if (input?.state) base = { state: input.state, reservations: [] };
  }
  const accepted: ReserveRequest[] = [];
  const previousLedgerTasks = new Set<string>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'previousLedger') previousLedgerTasks.add(String(e.eventId));
    // ...or what it was rebuilt from, in turn.
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && previousLedgerTasks.has(String(completed.scheduledEventId)))
      base = ((await decode(completed.result?.payloads)) as PreviousLedger | undefined) ?? base;
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update?.name === reserveIncomeUpdate.name) {
      const req = (await decode(update.args?.payloads)) as ReserveRequest | undefined;
      if (req) accepted.push(req);
    }
  }
  return { ...base, reservations: [...base.reservations, ...accepted] };
}
