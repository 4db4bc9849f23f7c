import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import type { PayoutLookup } from '../../../workflows/batch/contract';
import type { EarlierPayoutRun, PayoutStatus } from '../../../workflows/payout/contract';
import { payoutStatusQuery } from '../../../workflows/payout/contract';
import { readPayoutEnding } from '../../../workflows/payout/ending';
import { PayoutTracker } from '../../../workflows/payout/tracker';
import { SESSION_ID } from '../../../workflows/shared/search-attributes';
import { parsePayoutInput } from '../../../workflows/payout/contract';
import { runEvidence } from './run-history';
import { GRPC_NOT_FOUND, grpcCode } from '../../temporal/grpc-status';

type RunVerdict = Omit<EarlierPayoutRun, 'runId'>;

/** How long a closed run's status query may take before its published session id is used instead. */
const STATUS_QUERY_MS = 15_000;

/**
 * What one closed (or running) run of a payout workflow says about its money. Completed = paid; a
 * clean not-paid ending = moved no money; anything else (terminated, timed out, a failure that is not
 * ours, `payout_needs_attention`) is in doubt and carries the run's last status when it can be read,
 * so the bank can be asked about its session.
 */
async function classifyRun(client: Client, workflowId: string, runId?: string): Promise<RunVerdict | 'none'> {
  const handle = client.workflow.getHandle(workflowId, runId);
  let described: WorkflowExecutionDescription;
  try {
    described = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'none';
    throw err;
  }
  try {
    return await classifyDescribed(client, handle, described);
  } catch (err) {
    // Retention (or an operator) deleted the history between describe and the reads after it: the run
    // is as gone as one that was never found. Its history read is a raw call: gRPC's NOT_FOUND.
    if (err instanceof WorkflowNotFoundError || grpcCode(err) === GRPC_NOT_FOUND) return 'none';
    throw err;
  }
}

async function classifyDescribed(
  client: Client,
  handle: WorkflowHandle,
  described: WorkflowExecutionDescription,
): Promise<RunVerdict> {
  const workflowId = described.workflowId;
  const closeStatus = described.status.name;
  if (closeStatus === 'RUNNING') return { closeStatus, verdict: 'running' };
  if (closeStatus === 'COMPLETED')
    return { closeStatus, verdict: 'paid', status: (await handle.result()) as PayoutStatus };
  if (closeStatus === 'FAILED') {
    try {
      await handle.result();
    } catch (err) {
      const ending = readPayoutEnding(err instanceof WorkflowFailedError ? err.cause : undefined);
      if (ending?.kind === 'paid') return { closeStatus, verdict: 'paid', status: ending.status };
      if (ending?.kind === 'not_paid') return { closeStatus, verdict: 'not_paid', status: ending.status };
      if (ending) return { closeStatus, verdict: 'in_doubt', status: ending.status };
    }
  }
  // Terminated, timed out or failed by something else. A run whose own history proves it never reached
  // the bank (refused its input, or closed before any worker ran it) moved nothing: it must not hold
  // the reference hostage, or anyone could poison a reference in advance.
  const evidence = await runEvidence(client, workflowId, described.runId);
  if (evidence.movedNothing)
    return {
      closeStatus,
      verdict: 'not_paid',
      status: movedNothingStatus(workflowId, evidence, closeStatus),
    };
  // Otherwise its status query (the worker replays the closed run) still knows the session it created, if any.
  let status: PayoutStatus | undefined;
  try {
    // Bounded: replaying a history flooded to Temporal's size limit can take longer than the whole look-up may.
    status = await client.withDeadline(Date.now() + STATUS_QUERY_MS, () => handle.query(payoutStatusQuery));
  } catch {
    // A history too large to replay (a flood of forged signals until the server terminated the run):
    // the session id the run published as a search attribute is durable too, and enough to ask the bank.
    const sessionId = described.typedSearchAttributes.get(SESSION_ID);
    status = sessionId ? statusFromRecord(evidence.input, closeStatus, sessionId) : undefined;
  }
  return {
    closeStatus,
    verdict: 'in_doubt',
    ...(status ? { status } : {}),
    ...(evidence.startedAt ? { startedAt: evidence.startedAt.toISOString() } : {}),
    ...(evidence.closedAt ? { closedAt: evidence.closedAt.toISOString() } : {}),
  };
}

/** A run whose status cannot be replayed, rebuilt from its input and the session id it published. */
function statusFromRecord(input: unknown, closeStatus: string, sessionId: string) {
  const parsed = parsePayoutInput(input);
  if (!parsed.ok) return undefined;
  const tracker = new PayoutTracker(parsed.value, { upsert: () => undefined, now: () => '' });
  const status = tracker.fail('needs_attention', {
    code: 'needs_attention',
    reason: `the run ended ${closeStatus.toLowerCase()} and its status cannot be replayed; its bank session is ${sessionId}`,
  });
  status.bank.sessionId = sessionId;
  status.timestamps = {};
  return status;
}

/**
 * The status of a run that provably moved nothing: its request when its input was valid (so status and
 * reports show what it was for), else only the reference its workflow id names, with no payee and no amount.
 */
function movedNothingStatus(
  workflowId: string,
  evidence: { why: string; input: unknown },
  closeStatus: string,
): PayoutStatus {
  const failure = {
    code: 'moved_nothing',
    reason: `the run ended ${closeStatus.toLowerCase()} and ${evidence.why}: no money moved; it may be paid again`,
  };
  const parsed = parsePayoutInput(evidence.input);
  if (parsed.ok) {
    const tracker = new PayoutTracker(parsed.value, { upsert: () => undefined, now: () => '' });
    const status = tracker.fail('failed', failure);
    status.timestamps = {};
    return status;
  }
  return {
    reference: workflowId.replace(/^payout-/, ''),
    state: 'failed',
    amount: 0,
    currency: 'rub',
    bank: {},
    payee: { taxReference: '', method: { type: 'card', cardNumber: '' } },
    failure,
    timestamps: {},
    notes: [],
  };
}

/** What the latest run of a reference's payout workflow says (the batch decides what to do with it). */
export async function lookupPayout(client: Client, workflowId: string): Promise<PayoutLookup> {
  const run = await classifyRun(client, workflowId);
  if (run === 'none') return { kind: 'none' };
  switch (run.verdict) {
    case 'running':
      return { kind: 'running' };
    case 'paid':
    case 'not_paid':
      return { kind: run.verdict, status: run.status! };
    case 'in_doubt': {
      const how = run.closeStatus.toLowerCase();
      return {
        kind: 'needs_attention',
        closeStatus: how,
        reason:
          run.status?.failure?.reason ??
          `the payout workflow ${workflowId} ended ${how} without a clean outcome; run \`payrun payout reconcile ${run.status?.reference ?? workflowId.replace(/^payout-/, '')}\` to ask the bank`,
        ...(run.status ? { status: run.status } : {}),
      };
    }
  }
}

/**
 * Every run of one workflow id, as a visibility query. Every payout asks it before it creates a
 * session, so on a store of N workflows it must cost an index look-up, not N.
 *
 * Temporal's SQL visibility adds `TemporalNamespaceDivision IS NULL` to a query that does not name the
 * division. SQLite (the dev server) has no statistics to choose by and serves that query from the
 * division index, where every workflow of the namespace has the same NULL: it reads them all. Measured
 * on a dev server store of 100 000 workflows, 320–350 ms a query, and on a 100 000-row batch that
 * grows with every row paid (docs/performance.md). Naming the division as an OR keeps the same rows
 * (the default filter's NULL, and an empty division if one were ever written) but gives the planner
 * nothing to look up in that index, so it takes the workflow id's: 2–6 ms on the same store.
 */
export function runsOfWorkflowIdQuery(workflowId: string): string {
  const quoted = workflowId.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  return `WorkflowId = '${quoted}' AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision = '')`;
}

/**
 * Every other run of a payout workflow id, with what each did with the money. Asks the server's
 * visibility for the runs (the one list of them Temporal keeps), then each run's own record.
 */
export async function earlierPayoutRuns(
  client: Client,
  workflowId: string,
  currentRunId: string,
): Promise<EarlierPayoutRun[]> {
  const runIds: string[] = [];
  for await (const wf of client.workflow.list({ query: runsOfWorkflowIdQuery(workflowId) }))
    // A run that continued as new handed everything it knew to the next run of its chain, which answers
    // for the whole payout (and a flooded run's own history is too large to read in time).
    if (wf.runId !== currentRunId && wf.status.name !== 'CONTINUED_AS_NEW') runIds.push(wf.runId);
  const runs: EarlierPayoutRun[] = [];
  for (const runId of runIds) {
    const run = await classifyRun(client, workflowId, runId);
    if (run !== 'none') runs.push({ runId, ...run });
  }
  return runs;
}
