import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';

/**
 * Every activity's timeouts and retry policy, named once. Temporal's retry policy is the one owner of
 * retries: the bank client tries each call once inside an activity (activities/bank.ts), and every
 * startToClose here is longer than the client's own request deadline (BANK_REQUEST_TIMEOUT_MS,
 * 30 s by default), so an attempt is never abandoned while its request may still be answered.
 *
 * Local activities run in the worker inside the workflow task and leave one marker in history instead of
 * three events and a workflow task; they suit short calls whose repetition is harmless. The bank's signed
 * calls are that: a read changes nothing, and every write carries an idempotency key derived from the
 * workflow's id and first run id, which the bank honours for 24 hours. If the worker dies mid-call the
 * workflow task times out, the next worker replays and calls again with the same key, and the bank gives
 * the first answer back instead of a second operation.
 */

/** Creating a payout or refund: retried only while the bank's 24-hour idempotency window surely holds. */
export const BANK_WRITE_ONCE: LocalActivityOptions = {
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '12 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
};

/**
 * The earlier-runs look-up that goes on to create the session when nothing stands in its way
 * (beforeCreating with createIfClear): one attempt, longer than the bank's request deadline. If it
 * fails for any reason the payout takes the separate steps (the look-up until it answers, then the
 * create under BANK_WRITE_ONCE with the same idempotency key, so a session this attempt created is the
 * one the bank answers with).
 */
export const LOOKUP_THEN_CREATE: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
};

/** Confirm and cancel: keyed, bounded by the confirm window's safety margin. */
export const BANK_SETTLE: LocalActivityOptions = {
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** Reads (session/status): a few attempts; the workflow's poll loop asks again later. */
export const BANK_READ: LocalActivityOptions = {
  startToCloseTimeout: '45 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
};

/** Checking a signed webhook's signature in the worker: no network, so a few quick attempts. */
export const WEBHOOK_CHECK: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/** Asking the Temporal server (earlier runs, the taxpayer verdict): until it answers. */
export const TEMPORAL_READ: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** npd/check: never sooner than the bank's 30-second rule for one tax number. */
export const NPD_CHECK: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '31 seconds',
    backoffCoefficient: 1.5,
    maximumInterval: '10 minutes',
    maximumAttempts: 20,
  },
};

/** npd/request/status: a read, a handful of attempts. */
export const NPD_STATUS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
};

/**
 * The batch's steps on its store, payout look-ups, the deposit. Each is quick (a chunk is at most 500
 * rows; the deposit one bank request) except loading a chunk, which heartbeats per row; so a worker
 * that dies mid-step is noticed by the heartbeat within a minute, not at the 5-minute start-to-close.
 */
export const BATCH_STORE: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** A recipient ledger's reads of payouts' records and of its previous run (a history may be long). */
export const LEDGER_READS: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * The ledger proving a reservation against the payout's run (two reads of the server): a local activity,
 * one marker. Bounded below the payout's own wait for the answer (TEMPORAL_READ, a minute an attempt), so
 * a server that does not answer fails the reservation, and the payout asks again, instead of both waiting.
 */
export const LEDGER_PROOF: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
};

/**
 * The same proof as an ordinary activity, for ledgers that started after patch `ledger-proof-as-task`. As a
 * local activity it kept the ledger's workflow task open while reservation Updates kept arriving, and Core
 * logged "Trying to send a new WFT for a run which already has one" and "unprocessed protocol messages":
 * the 1 000-row batch-large test took 163 s alone and stalled past 10 minutes in a full `make test`. An
 * ordinary activity closes the task, and the Updates that arrive meanwhile are taken by the next one.
 */
export const LEDGER_PROOF_TASK: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
};

/**
 * Writing the report: 1 000 000 rows took 82 s here (bench/report.ts), so half an hour leaves room for
 * files many times larger on a slow host; the heartbeat, sent as rows are written, notices a dead worker.
 */
export const BATCH_REPORT: ActivityOptions = {
  ...BATCH_STORE,
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
};

/** The refund's session/refund and reads (regular activities: refunds are rare). */
export const REFUND_WRITE_ONCE: ActivityOptions = { ...BANK_WRITE_ONCE, startToCloseTimeout: '1 minute' };
export const REFUND_READ: ActivityOptions = { ...BANK_READ };

/** The connectivity check's one diagnostic call. */
export const DIAGNOSTIC: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
};

/** Reconciliation's store, Temporal's listing and the bank's reads: until they answer. */
const UNTIL_ANSWERED: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
};

/** Listing a day's payouts from Temporal: long for a busy day, so the heartbeat notices a dead worker. */
export const RECONCILIATION_LIST: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: UNTIL_ANSWERED,
};

/** Matching a day and writing its reports, recording a missing statement, the days still due. */
export const RECONCILIATION_STORE: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: UNTIL_ANSWERED,
};

/** The accounts to reconcile, from the bank's wallet balance report: a read, a handful of attempts. */
export const RECONCILIATION_ACCOUNTS: ActivityOptions = {
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
};

/**
 * The day's account statement. Its retries are built per day from how long that day may wait for the
 * bank (workflows/reconciliation/workflow.ts statementFetcher); the attempt's own deadline is fixed here.
 */
export const RECONCILIATION_STATEMENT: ActivityOptions = { startToCloseTimeout: '45 seconds' };

/** Asking the bank to send a self-employed person a link request: the person asking waits a few minutes. */
export const SELF_EMPLOYED_LINK: ActivityOptions = {
  startToCloseTimeout: '45 seconds',
  scheduleToCloseTimeout: '3 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

/**
 * Sending an endpoint's pending status events (workflows/event-outbox/): one attempt sends all, with a
 * heartbeat per event, so a dead worker is noticed in a minute; retried with backoff (10 s doubling to
 * 10 minutes) for three days, then the oldest event is given up (`payrun events replay` resends it). The
 * delivery workflow may shorten the retries (its input; tests). Calls no bank.
 */
export const EVENT_DELIVERY: ActivityOptions = {
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '1 minute',
  scheduleToCloseTimeout: '72 hours',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
};

/** Marking the oldest event given up: a write of one empty file. */
export const EVENT_GIVE_UP: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * A return's evidence checked (the bank's key, or the day's statement read again from the bank): a
 * statement may fail for a while, so a handful of attempts, then the evidence is refused.
 */
export const RETURN_EVIDENCE: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 6,
  },
};

/** A proven return's writes (the report, the receipt, the ledger's take-back): tried until done. Calls no bank. */
export const RETURN_WRITES: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * A recurring payrun's period submitted by the watcher's process (it streams the file into the store, a
 * template of at most 1 MiB). It waits on its queue as long as no watcher runs: Temporal UI shows the
 * activity scheduled, and the period is submitted when one comes back. A refusal retrying cannot change
 * (SCHEDULE_REFUSED_TYPE) ends the run.
 */
export const PERIOD_SUBMIT: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: ['schedule_refused'],
  },
};
