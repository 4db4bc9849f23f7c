import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { BankClient } from '../src/bank';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { lookupPayout } from '../src/batch/services/lookup';
import { readHistory } from '../src/batch/services/run-history';
import { mapLimit } from '../src/map-limit';
import type { Policy } from '../src/policy/file';
import { countsFrom, judgePayoutRun, type PayoutRunFacts } from '../src/recipient/proof';
import { recipientLedgerId } from '../src/temporal/person-ids';
import { payoutStatusQuery, payoutWorkflowId } from '../workflows/payout/contract';
import {
  LEDGER_CONTINUING,
  recipientTaskQueue,
  reserveIncomeManyUpdate,
  reserveIncomeUpdate,
  RESERVATIONS_PER_UPDATE_MAX,
  type PayoutProof,
  type PreviousLedger,
  type ProvePayoutAsk,
  type RefusedReservation,
  type ReserveAnswer,
  type ReserveRequest,
} from '../workflows/recipient-ledger/contract';
import { Courier } from './courier';
import { callBank } from './failures';
import { idempotencyKey } from './idempotency';
import { PAID_STATES } from '../workflows/payout/contract';
import { REFUSED_KEPT, type PayoutOutcome } from '../workflows/recipient-ledger/contract';

/** Payouts looked up at once when the ledger settles its reservations. */
const LOOKUP_CONCURRENCY = 8;

/**
 * The clock a reservation is dated by (provePayouts, in the ledger's worker): the Moscow year and month it
 * counts in are this moment's. The worker's own clock. Only a test replaces it (setLedgerClockForTests, from code in the worker's own
 * process) to pay on either side of a Moscow midnight: no setting, file, flag or workflow input reaches it.
 */
let ledgerClock = (): number => Date.now();
export function setLedgerClockForTests(clock?: () => number): void {
  ledgerClock = clock ?? (() => Date.now());
}

/** Ledgers this process has seen running: their next reservation is a plain Update, not a start as well. */
const running = new Set<string>();
const RUNNING_KEPT = 10_000;

interface Reservation {
  taskQueue: string;
  taxReference: string;
  req: ReserveRequest;
}

/** One courier per client: the reservations one worker process sends a ledger while its last Update is out. */
const couriers = new WeakMap<Client, Courier<Reservation, ReserveAnswer>>();

/**
 * Reserves a payout's amount in its recipient's ledger, starting the ledger's workflow if it is not running.
 * The ledger proves the request against the payout's run and dates and limits it itself. Reservations
 * for a ledger this process is already sending one to wait for it and go on together, in one Update
 * (a batch paying one person many times keeps that person's ledger busy: one workflow task and one proof
 * for many payouts, not one each).
 */
export async function reserveIncome(
  client: Client,
  taskQueue: string,
  taxReference: string,
  req: ReserveRequest,
): Promise<ReserveAnswer> {
  let courier = couriers.get(client);
  if (!courier)
    couriers.set(
      client,
      (courier = new Courier((_, sent) => sendReservations(client, sent), RESERVATIONS_PER_UPDATE_MAX)),
    );
  try {
    return await courier.deliver(recipientLedgerId(taskQueue, taxReference), {
      taskQueue,
      taxReference,
      req,
    });
  } catch (err) {
    throw ledgerContinuing(err) ?? err;
  }
}

/** One ledger's reservations: alone, the Update a payout always sent; together, one reserveIncomeMany. */
async function sendReservations(client: Client, sent: Reservation[]): Promise<ReserveAnswer[]> {
  const { taskQueue, taxReference } = sent[0]!;
  if (sent.length === 1) {
    const { req } = sent[0]!;
    // One Update id per payout run: asked again (the quick attempt cut short, a retry), the server answers
    // the one the run already sent instead of the ledger proving it a second time.
    const updateId = req.runId !== undefined ? `reserve-${req.runId}` : undefined;
    return [await updateLedger(client, taskQueue, taxReference, reserveIncomeUpdate, req, updateId)];
  }
  const reqs = sent.map((r) => r.req);
  // Named by what it carries: the same requests sent again get the same answers, never another group's.
  const updateId = `reserve-many-${createHash('sha256').update(JSON.stringify(reqs)).digest('hex').slice(0, 32)}`;
  return updateLedger(client, taskQueue, taxReference, reserveIncomeManyUpdate, reqs, updateId);
}

/** An Update to a person's ledger: a plain one to a ledger seen running, else with its start. */
async function updateLedger<Ret, Arg>(
  client: Client,
  taskQueue: string,
  taxReference: string,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
  updateId: string | undefined,
): Promise<Ret> {
  const workflowId = recipientLedgerId(taskQueue, taxReference);
  if (running.has(workflowId)) {
    try {
      return await client.workflow
        .getHandle(workflowId)
        .executeUpdate(update, { args: [arg], ...(updateId ? { updateId } : {}) });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      running.delete(workflowId); // closed meanwhile (terminated by hand): start it again below
    }
  }
  const answer = await updateLedgerWithStart(client, taskQueue, taxReference, update, [arg], { updateId });
  if (running.size >= RUNNING_KEPT) running.clear();
  running.add(workflowId);
  return answer;
}

/**
 * The ledger turned the reservation away while handing over to its next run: a retryable failure of the
 * activity, so its retry policy (the one owner of retries) asks again, and the next run takes it.
 */
function ledgerContinuing(err: unknown): ApplicationFailure | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== LEDGER_CONTINUING) return undefined;
  return ApplicationFailure.retryable(
    "the recipient's ledger is continuing as new; the reservation is asked again",
    LEDGER_CONTINUING,
  );
}

/** Sends an Update to the person's ledger, starting the ledger's workflow first if it is not running. */
export function updateLedgerWithStart<Ret, Args extends unknown[]>(
  client: Client,
  taskQueue: string,
  taxReference: string,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  { updateId }: { updateId?: string | undefined } = {},
): Promise<Ret> {
  return client.workflow.executeUpdateWithStart(update, {
    args,
    ...(updateId ? { updateId } : {}),
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
  policy,
}: {
  client: Client;
  bank: BankClient;
  taskQueue: string;
  /** The worker's policy: a reservation's limits are its, never the sender's. */
  policy: { current(): Policy };
}) {
  return {
    /**
     * Whether each reservation comes from the running payout run it names (src/recipient/proof.ts), and if it
     * does, what it counts as: self-employed or not as the run's input says, dated by the worker's clock,
     * under the worker's policy for the person. A local activity of the ledger: it reads the server's
     * record of the run (describe, its first event), never the payout workflow itself, whose workflow task
     * stays open while its own local activity waits for this answer.
     */
    async provePayouts({ asks }: { asks: ProvePayoutAsk[] }): Promise<PayoutProof[]> {
      const ledgerId = Context.current().info.workflowExecution?.workflowId;
      if (!ledgerId) throw ApplicationFailure.nonRetryable('provePayouts runs only for a ledger workflow');
      return mapLimit(asks, LOOKUP_CONCURRENCY, async (ask): Promise<PayoutProof> => {
        const run =
          ask.workflowId === payoutWorkflowId(ask.reference)
            ? await readPayoutRun(client, ask.workflowId, ask.runId)
            : undefined;
        const judged = judgePayoutRun(ask, run, {
          taskQueue,
          ledgerId,
          ledgerOf: (inn) => recipientLedgerId(taskQueue, inn),
        });
        if (!judged.ok) return judged;
        const { recipient, selfEmployed } = judged.request;
        const limits = policy.current().limitsFor(recipient.taxReference, selfEmployed);
        return {
          ok: true,
          selfEmployed,
          at: new Date(countsFrom(judged.request, ledgerClock())).toISOString(),
          ...(limits ? { limits } : {}),
        };
      });
    },

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

/** gRPC's INVALID_ARGUMENT: the server's answer to a run id it cannot parse. */
const INVALID_ARGUMENT = 3;

/** What the server holds of one payout run; undefined when it has no such run. */
async function readPayoutRun(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<PayoutRunFacts | undefined> {
  let described;
  try {
    described = await client.workflow.getHandle(workflowId, runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    if ((err as { code?: number }).code === INVALID_ARGUMENT) return undefined;
    throw err;
  }
  if (described.runId !== runId) return undefined;
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const payloads = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  let input: unknown;
  try {
    input = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads);
  } catch {
    input = undefined; // not readable with the worker's keys: judged unreadable
  }
  return {
    status: described.status.name,
    workflowType: described.type,
    taskQueue: described.taskQueue,
    input,
  };
}

/**
 * The newest earlier run of the ledger that really held the year, read as PreviousLedger says. A run counts
 * only when the ledger's own code gave it its figures: continued from its predecessor by the server, or
 * rebuilt by its own completed `previousLedger`. Anything else — a run started by hand on a queue no worker
 * serves, or terminated before its rebuild finished — never held a figure and answered no reservation
 * (they wait for the rebuild), so it is passed over: starting and terminating a decoy cannot empty a year.
 */
export async function readPreviousLedger(
  client: Client,
  workflowId: string,
  currentRunId: string,
): Promise<PreviousLedger> {
  const runs: { runId: string; startTime: Date }[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    // Not by status: visibility may still list a run terminated a moment ago as running, and the one
    // running run is this one.
    if (run.runId !== currentRunId) runs.push({ runId: run.runId, startTime: run.startTime });
  }
  runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  for (const run of runs) {
    const events = await readHistory(client, workflowId, run.runId);
    if (heldTheYear(events)) return ledgerOf(client, events);
  }
  return { reservations: [] };
}

type LedgerHistory = Awaited<ReturnType<typeof readHistory>>;

function heldTheYear(events: LedgerHistory): boolean {
  if (events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId) return true;
  const rebuilds = new Set<string>();
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'previousLedger')
      rebuilds.add(String(e.eventId));
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && rebuilds.has(String(completed.scheduledEventId))) return true;
  }
  return false;
}

/** What one earlier run held, read from its history: its starting state and the Updates it answered. */
export async function ledgerOf(client: Client, events: LedgerHistory): Promise<PreviousLedger> {
  const decode = (payloads: Parameters<typeof decodeFromPayloadsAtIndex>[2]) =>
    decodeFromPayloadsAtIndex<unknown>(client.options.loadedDataConverter, 0, payloads);
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  let base: PreviousLedger = { reservations: [] };
  // Its state as the workflow itself takes it: only what its own continue-as-new carried over...
  if (started?.continuedExecutionRunId) {
    const input = (await decode(started.input?.payloads)) as { state?: unknown } | undefined;
    if (input?.state) base = { state: input.state, reservations: [] };
  }
  // Only reservations the run answered ok: one it refused (a limit, or not proven) never counted.
  // Each Update's requests as sent (one, or several of reserveIncomeMany, answered in the same order).
  const accepted = new Map<string, { reqs: ReserveRequest[]; many: boolean }>();
  const restored: PreviousLedger['reservations'] = [];
  // And the ones it refused as not from a payout, still to be shown (never counted).
  const refused: RefusedReservation[] = [];
  const previousLedgerTasks = new Set<string>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'previousLedger') previousLedgerTasks.add(String(e.eventId));
    // ...or what it was rebuilt from, in turn.
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && previousLedgerTasks.has(String(completed.scheduledEventId)))
      base = ((await decode(completed.result?.payloads)) as PreviousLedger | undefined) ?? base;
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const many = request?.input?.name === reserveIncomeManyUpdate.name;
    if ((many || request?.input?.name === reserveIncomeUpdate.name) && request?.meta?.updateId) {
      const sent = await decode(request.input?.args?.payloads);
      const reqs = (many ? (Array.isArray(sent) ? sent : []) : sent ? [sent] : []) as ReserveRequest[];
      accepted.set(request.meta.updateId, { reqs, many });
    }
    const answered = e.workflowExecutionUpdateCompletedEventAttributes;
    const update = answered?.meta?.updateId ? accepted.get(answered.meta.updateId) : undefined;
    if (!update || !answered?.outcome?.success) continue;
    const result = await decode(answered.outcome.success.payloads);
    const answers = (update.many ? (Array.isArray(result) ? result : []) : [result]) as (
      ReserveAnswer | undefined
    )[];
    const answeredAt = new Date(Number(e.eventTime?.seconds ?? 0) * 1000).toISOString();
    update.reqs.forEach((req, i) => {
      const answer = answers[i];
      // Dated as the ledger dated it (a proven reservation's answer says when), else as it was sent.
      const at = (answer?.ok ? answer.at : undefined) ?? req.at;
      if (answer?.ok && at) restored.push({ ...req, at });
      if (answer && !answer.ok && 'unproven' in answer)
        refused.push({
          reference: req.reference,
          workflowId: req.workflowId,
          ...(req.runId !== undefined ? { runId: req.runId } : {}),
          amount: req.amount,
          at: answeredAt,
          why: answer.unproven,
          reason: answer.reason,
        });
    });
  }
  return {
    ...base,
    reservations: [...base.reservations, ...restored],
    refused: [...(base.refused ?? []), ...refused].slice(-REFUSED_KEPT),
  };
}
