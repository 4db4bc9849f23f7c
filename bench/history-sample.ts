/**
 * Every payout history of a bench run counted (not a sample of 20): the average per kind of row, and each
 * history over the budget's 20 events read event by event to say why. A person's first payout waits for
 * the taxpayer verdict by signal (26 events, docs/performance.md): it is counted apart, not as a breach.
 */
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';

/** The budget per successful payout (docs/performance.md, common rules). */
export const EVENTS_BUDGET = 20;

const EventType = proto.api.enums.v1.EventType;

export interface HistoryCounts {
  all: number;
  selfEmployed: number;
  plain: number;
  /** Histories counted. */
  counted: number;
  /** The longest history that is not a person's first payout. */
  max: number;
  /** Histories over EVENTS_BUDGET that waited for a taxpayer verdict (a person's first payout). */
  firstOfPerson: number;
  /** Histories over EVENTS_BUDGET for any other reason: a breach of the budget. */
  overBudget: number;
  /** What the breaches held beyond the usual path, e.g. `WORKFLOW_TASK_FAILED: 3`. */
  overBudgetWhy: Record<string, number>;
}

const average = (xs: number[]) =>
  xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : NaN;

/** Event types that mark a history as longer than the usual path for a reason worth naming. */
const TELLING: Record<number, string> = {
  [EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED]: 'WORKFLOW_TASK_FAILED',
  [EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT]: 'WORKFLOW_TASK_TIMED_OUT',
  [EventType.EVENT_TYPE_TIMER_STARTED]: 'TIMER_STARTED',
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED]: 'WORKFLOW_EXECUTION_SIGNALED',
  [EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]: 'ACTIVITY_TASK_SCHEDULED',
  [EventType.EVENT_TYPE_MARKER_RECORDED]: 'MARKER_RECORDED',
};

/**
 * Counts the history of every workflow id, `lanes` at a time. `selfEmployed(i)` says which kind row i is.
 * `verdictSignal`: the signal name a person's first payout waits for (absent: no row is counted apart).
 */
export async function countHistories(
  client: Client,
  ids: string[],
  selfEmployed: (i: number) => boolean,
  verdictSignal?: string,
  lanes = 16,
): Promise<HistoryCounts> {
  const lengths: number[] = new Array<number>(ids.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < ids.length) {
        const i = next++;
        lengths[i] = (await client.workflow.getHandle(ids[i]!).describe()).historyLength;
      }
    }),
  );
  let firstOfPerson = 0;
  let overBudget = 0;
  let max = 0;
  const why: Record<string, number> = {};
  for (let i = 0; i < ids.length; i++) {
    const n = lengths[i]!;
    if (n <= EVENTS_BUDGET) {
      max = Math.max(max, n);
      continue;
    }
    const { events } = await client.workflow.getHandle(ids[i]!).fetchHistory();
    const waitedForVerdict =
      verdictSignal !== undefined &&
      (events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === verdictSignal);
    if (waitedForVerdict) {
      firstOfPerson++;
      continue;
    }
    overBudget++;
    max = Math.max(max, n);
    for (const e of events ?? []) {
      const name = TELLING[e.eventType ?? 0];
      if (!name) continue;
      why[name] = (why[name] ?? 0) + 1;
      // A failed task's cause says which path made it (UNHANDLED_COMMAND: a signal met the last task).
      const cause = e.workflowTaskFailedEventAttributes?.cause;
      if (cause) {
        const named = `${name}:${String(proto.api.enums.v1.WorkflowTaskFailedCause[cause]).replace('WORKFLOW_TASK_FAILED_CAUSE_', '')}`;
        why[named] = (why[named] ?? 0) + 1;
      }
    }
  }
  const idx = lengths.map((_, i) => i);
  return {
    all: average(lengths),
    selfEmployed: average(idx.filter(selfEmployed).map((i) => lengths[i]!)),
    plain: average(idx.filter((i) => !selfEmployed(i)).map((i) => lengths[i]!)),
    counted: ids.length,
    max,
    firstOfPerson,
    overBudget,
    overBudgetWhy: why,
  };
}
