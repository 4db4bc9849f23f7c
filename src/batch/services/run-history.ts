import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { GRPC_RESOURCE_EXHAUSTED, grpcCode } from '../../temporal/grpc-status';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The failure type every payrun workflow throws for input it refuses, before it does anything else. */
export const INVALID_INPUT_TYPE = 'invalid_input';

export type RunEvidence =
  { movedNothing: true; why: string } | { movedNothing: false; why: string; firstBankCallAt?: Date };

const timeOf = (e: HistoryEvent): Date | undefined => {
  const t = e.eventTime;
  if (!t?.seconds) return undefined;
  return new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6));
};

/**
 * What a closed run's own history proves about the bank, read from what the server durably recorded.
 * Every bank call of a payrun workflow is an activity: a regular one leaves ActivityTaskScheduled, a
 * local one a MarkerRecorded — but only when the workflow task that ran it completes, so a local
 * activity may have reached the bank from a task that never completed. What such a task can have done
 * is bounded by the workflows themselves: money moves only on a payout's confirm, which the payout sends
 * only in a later task than the one that created its session (workflows/payout/run.ts, `confirmAfter`),
 * and on a refund's session/refund, a regular activity. A run therefore provably moved nothing when it
 * has no activity, marker or child workflow, and either
 * - no workflow task ever completed (terminated or timed out before, or during, its first task: no
 *   command was ever recorded, and a confirm needs an earlier task to have completed), or
 * - it failed `invalid_input` by its own hand: every payrun workflow validates its input and id first,
 *   before any activity, and a workflow task that completes records every local activity it ran.
 * `movesMoney` narrows which recorded events count as a possible payment (a refund names its one
 * money-moving activity); the default counts every activity, marker and child workflow.
 * Anything else stays in doubt, and the bank must be asked.
 */
export function evidenceOf(
  events: readonly HistoryEvent[],
  movesMoney: (e: HistoryEvent) => boolean = mayCallTheBank,
): RunEvidence {
  const call = events.find(movesMoney);
  if (call) return { movedNothing: false, why: 'it called activities', firstBankCallAt: timeOf(call) };
  // A run its predecessor continued as new carries the chain's state (its bank session): whatever it did
  // itself, the chain may have moved money.
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (started?.continuedExecutionRunId && started.initiator === CONTINUE_AS_NEW_INITIATOR)
    return {
      movedNothing: false,
      why: 'it continues an earlier run of the same workflow, which may have called the bank',
    };
  // Otherwise only a whole history proves anything: from its start to the event that closed the run.
  const whole = events[0]?.workflowExecutionStartedEventAttributes && closes(events.at(-1));
  if (!whole) return { movedNothing: false, why: 'its history could not be read whole' };
  if (!events.some((e) => e.workflowTaskStartedEventAttributes))
    return { movedNothing: true, why: 'it closed before any worker ran it (no workflow task started)' };
  if (!events.some((e) => e.workflowTaskCompletedEventAttributes))
    return {
      movedNothing: true,
      why: 'it closed before its first workflow task completed (no command, so no confirm, was ever issued)',
    };
  // A completed task records every activity it asked for: without `movesMoney` events none moved money.
  if (movesMoney !== mayCallTheBank)
    return { movedNothing: true, why: 'it never asked the bank to move money (no such activity recorded)' };
  const failedType =
    events.at(-1)?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type;
  if (failedType === INVALID_INPUT_TYPE)
    return { movedNothing: true, why: 'it refused its input (invalid_input) before any activity' };
  return { movedNothing: false, why: 'a workflow task ran that recorded no outcome' };
}

/** The workflow's own continue-as-new (not a retry or a cron run). */
const CONTINUE_AS_NEW_INITIATOR =
  temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW;

/** Events a history page starts with; halved while a page is larger than the client accepts (4 MB). */
const PAGE_EVENTS = 25;

/**
 * Every event of one run, page by page. A history flooded with large signals can have pages above gRPC's
 * 4 MB message limit, which made whole-history reads fail with RESOURCE_EXHAUSTED: such a page is asked
 * for again with fewer events (one event is at most Temporal's 2 MB blob limit).
 */
export async function readHistory(
  client: Client,
  workflowId: string,
  runId: string,
  /** Stop after the page holding an event for which this is true (the rest cannot change the answer). */
  enough: (e: HistoryEvent) => boolean = () => false,
): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  let pageSize = PAGE_EVENTS;
  for (;;) {
    let page;
    try {
      page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: pageSize,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    } catch (err) {
      if (grpcCode(err) !== GRPC_RESOURCE_EXHAUSTED || pageSize === 1) throw err;
      pageSize = Math.max(1, Math.floor(pageSize / 4));
      continue; // the same page again, smaller
    }
    const got = page.history?.events ?? [];
    events.push(...got);
    if (!page.nextPageToken?.length || got.some(enough)) break;
    nextPageToken = page.nextPageToken;
  }
  return events;
}

/** Every bank call of a payrun workflow is one of these. */
const mayCallTheBank = (e: HistoryEvent): boolean =>
  !!(
    e.activityTaskScheduledEventAttributes ||
    e.markerRecordedEventAttributes ||
    e.startChildWorkflowExecutionInitiatedEventAttributes
  );

const closes = (e: HistoryEvent | undefined): boolean =>
  !!(
    e?.workflowExecutionCompletedEventAttributes ||
    e?.workflowExecutionFailedEventAttributes ||
    e?.workflowExecutionTerminatedEventAttributes ||
    e?.workflowExecutionTimedOutEventAttributes ||
    e?.workflowExecutionCanceledEventAttributes ||
    e?.workflowExecutionContinuedAsNewEventAttributes
  );

/** Reads one run's history from the server: what it proves, its start and close times, and its input. */
export async function runEvidence(
  client: Client,
  workflowId: string,
  runId: string,
  movesMoney: (e: HistoryEvent) => boolean = mayCallTheBank,
): Promise<RunEvidence & { input: unknown; startedAt?: Date; closedAt?: Date }> {
  // A call settles it (in doubt), so a history flooded after its first call is not read to the end.
  const events = await readHistory(client, workflowId, runId, movesMoney);
  const payloads = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  let input: unknown;
  try {
    input = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads);
  } catch {
    input = undefined; // not readable with our keys: only its shape is lost, not the evidence
  }
  const startedAt = events[0] ? timeOf(events[0]) : undefined;
  const closedAt = closes(events.at(-1)) ? timeOf(events.at(-1)!) : undefined;
  return {
    ...evidenceOf(events, movesMoney),
    input,
    ...(startedAt ? { startedAt } : {}),
    ...(closedAt ? { closedAt } : {}),
  };
}

/** A refund moves money only through its session/refund activity (a regular one: always recorded first). */
export const schedulesActivity =
  (name: string) =>
  (e: HistoryEvent): boolean =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === name;
