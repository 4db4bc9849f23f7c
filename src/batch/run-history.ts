import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';

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
 * activity may have reached the bank from a task that never completed. A run therefore provably
 * moved nothing only when it has no activity, marker or child workflow, and either
 * - no workflow task ever started (terminated or timed out before any worker ran its code), or
 * - it failed `invalid_input` by its own hand: every payrun workflow validates its input and id first,
 *   before any activity, and a workflow task that completes records every local activity it ran.
 * Anything else stays in doubt, and the bank must be asked.
 */
export function evidenceOf(events: readonly HistoryEvent[]): RunEvidence {
  const call = events.find(
    (e) =>
      e.activityTaskScheduledEventAttributes ||
      e.markerRecordedEventAttributes ||
      e.startChildWorkflowExecutionInitiatedEventAttributes,
  );
  if (call) return { movedNothing: false, why: 'it called activities', firstBankCallAt: timeOf(call) };
  const tasksStarted = events.filter((e) => e.workflowTaskStartedEventAttributes).length;
  if (tasksStarted === 0)
    return { movedNothing: true, why: 'it closed before any worker ran it (no workflow task started)' };
  const failedType =
    events.at(-1)?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type;
  if (failedType === INVALID_INPUT_TYPE)
    return { movedNothing: true, why: 'it refused its input (invalid_input) before any activity' };
  return { movedNothing: false, why: 'a workflow task ran that recorded no outcome' };
}

/** Reads one run's history from the server (the SDK pages it): what it proves, and the input it was started with. */
export async function runEvidence(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<RunEvidence & { input: unknown }> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const events = history.events ?? [];
  const payloads = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  let input: unknown;
  try {
    input = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads);
  } catch {
    input = undefined; // not readable with our keys: only its shape is lost, not the evidence
  }
  return { ...evidenceOf(events), input };
}
