/**
 * Where a batch's time goes: pays one batch (bench/batch.ts's file and worker), then reads the
 * server's histories — event types and times only, no payloads — and prints
 *   - the batch: how long its workflow tasks waited for a worker and ran, its activities, how long
 *     a child took from being initiated to running, from a child's end to the next child's start,
 *     and the slot-seconds the window stood empty;
 *   - the payouts: how long each lived, and the median time of each event of the commonest shapes.
 *
 *   node -r ./test/harness/ts-register.js bench/row-timeline.ts [rows=1000] [maxInFlight=50]
 *
 * SANDBOX_PROFILE=realistic for the slow bank; PAYRUN_TEMPORAL_ADDRESS as in bench/batch.ts.
 * docs/performance-history.md ("The fifth round") reads it.
 */
process.env.LOG_LEVEL ??= 'warn';

import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { SandboxProfile } from '../src/sandbox';
import { runBatchBench, startBenchTemporal } from './batch';

type HistoryEvent = proto.api.history.v1.IHistoryEvent;
const EventType = proto.api.enums.v1.EventType;

const eventMs = (e: HistoryEvent) =>
  Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
const typeName = (e: HistoryEvent) => EventType[e.eventType!]?.replace('EVENT_TYPE_', '') ?? '?';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

function describe(what: string, values: number[]): string {
  if (values.length === 0) return `| ${what} | 0 | | | | |`;
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  const p = (q: number) => percentile(sorted, q);
  return `| ${what} | ${sorted.length} | ${Math.round(sum / sorted.length)} | ${p(0.5)} | ${p(0.9)} | ${p(1)} |`;
}

/** A run's events, every page (the SDK pages; payloads stay as stored, unread). */
async function history(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

/** Milliseconds from the event an id in `since` names to `t`, added to `into` when that event was seen. */
function addElapsed(into: number[], since: Map<number, number>, eventId: unknown, t: number): void {
  const from = since.get(Number(eventId));
  if (from !== undefined) into.push(t - from);
}

/** The batch's side: every run of its workflow, read in order. */
async function batchLines(client: Client, batchId: string, maxInFlight: number) {
  const runs: HistoryEvent[][] = [];
  // Start from the batch's first run and follow continue-as-new forward from it.
  const described = await client.workflow.getHandle(batchId).describe();
  let runId = described.raw.workflowExecutionInfo?.firstRunId ?? undefined;
  while (runId) {
    const events = await history(client, batchId, runId);
    runs.push(events);
    const last = events[events.length - 1];
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  const pickup: number[] = [];
  const taskRun: number[] = [];
  const activities: number[] = [];
  const initiatedToStarted: number[] = [];
  const endToNextStart: number[] = [];
  let idleSlotMs = 0;
  let inFlight = 0;
  let firstStart: number | undefined;
  let lastMs = 0;
  const ends: number[] = [];
  const children: string[] = [];
  for (const events of runs) {
    let taskScheduled = 0;
    let taskStarted = 0;
    const activityScheduled = new Map<number, number>();
    const childInitiated = new Map<number, number>();
    for (const e of events) {
      const t = eventMs(e);
      if (firstStart !== undefined) idleSlotMs += Math.max(0, maxInFlight - inFlight) * (t - lastMs);
      lastMs = t;
      switch (e.eventType) {
        case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
          taskScheduled = t;
          break;
        case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
          pickup.push(t - taskScheduled);
          taskStarted = t;
          break;
        case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
          taskRun.push(t - taskStarted);
          break;
        case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
          activityScheduled.set(Number(e.eventId), t);
          break;
        case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
          addElapsed(
            activities,
            activityScheduled,
            e.activityTaskCompletedEventAttributes!.scheduledEventId,
            t,
          );
          break;
        case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
          firstStart ??= t;
          inFlight++;
          childInitiated.set(Number(e.eventId), t);
          children.push(e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!);
          if (ends.length) endToNextStart.push(t - ends.shift()!);
          break;
        case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
          addElapsed(
            initiatedToStarted,
            childInitiated,
            e.childWorkflowExecutionStartedEventAttributes!.initiatedEventId,
            t,
          );
          break;
        case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
        case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
          inFlight = Math.max(0, inFlight - 1);
          ends.push(t);
          break;
      }
    }
  }
  const startMs = eventMs(runs[0]![0]!);
  return {
    lines: [
      describe('a workflow task waits for a worker (scheduled → started)', pickup),
      describe('a workflow task runs (started → completed)', taskRun),
      describe('an activity (scheduled → completed)', activities),
      describe('a child starts (initiated → started)', initiatedToStarted),
      describe('a slot is handed over (a child ends → the next is initiated)', endToNextStart),
    ],
    runs: runs.length,
    children,
    firstChildAfterMs: (firstStart ?? startMs) - startMs,
    idleSlotSeconds: Math.round(idleSlotMs / 100) / 10,
    wallMs: lastMs - startMs,
  };
}

/** The payouts' side: each one's life, and the median of each event for the commonest shapes. */
async function payoutLines(client: Client, workflowIds: string[]) {
  const lives: number[] = [];
  const byShape = new Map<string, number[][]>();
  for (const workflowId of workflowIds) {
    const events = await history(client, workflowId);
    const start = eventMs(events[0]!);
    const offsets = events.map((e) => eventMs(e) - start);
    lives.push(offsets[offsets.length - 1]!);
    const shape = events.map(typeName).join(',');
    byShape.set(shape, [...(byShape.get(shape) ?? []), offsets]);
  }
  const shapes = [...byShape.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 2);
  const timelines = shapes.map(([shape, all]) => {
    const rows = shape.split(',').map((name, i) => {
      const sorted = all.map((o) => o[i]!).sort((a, b) => a - b);
      return `| ${i + 1} | ${name} | ${percentile(sorted, 0.5)} | ${percentile(sorted, 0.9)} |`;
    });
    return [
      `${all.length} payouts of this shape:`,
      '',
      '| # | event | ms p50 | ms p90 |',
      '| ---: | --- | ---: | ---: |',
      ...rows,
    ];
  });
  return { life: describe('a payout lives (started → closed)', lives), timelines };
}

async function main(): Promise<void> {
  const [rowsArg, inFlightArg] = process.argv.slice(2);
  const rows = Number(rowsArg ?? 1000);
  const maxInFlight = Number(inFlightArg ?? 50);
  if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(maxInFlight) || maxInFlight < 1)
    throw new Error(`usage: row-timeline.ts [rows] [maxInFlight], whole numbers above 0`);
  const profile = (process.env.SANDBOX_PROFILE || 'instant') as SandboxProfile;
  const temporal = await startBenchTemporal();
  try {
    const r = await runBatchBench({ rows, maxInFlight, serverPid: temporal.pid, sandbox: { profile } });
    if (!r.ledgerExactlyOncePerRow) throw new Error('not one ledger payout per row');
    const connection = await Connection.connect({ address: temporal.address });
    try {
      const client = new Client({ connection });
      const batch = await batchLines(client, r.batchId, maxInFlight);
      const payouts = await payoutLines(client, batch.children);
      const head = '| what | n | ms mean | p50 | p90 | max |\n| --- | ---: | ---: | ---: | ---: | ---: |';
      console.log(
        [
          `${rows} rows, ${maxInFlight} in flight, ${profile} bank: ${r.rowsPerSecond} rows/s, ${r.totalMs} ms, ` +
            `batch runs ${batch.runs}, first child initiated ${batch.firstChildAfterMs} ms after the batch started, ` +
            `window empty for ${batch.idleSlotSeconds} slot-seconds of ${Math.round((maxInFlight * batch.wallMs) / 1000)}`,
          '',
          head,
          ...batch.lines,
          payouts.life,
          '',
          ...payouts.timelines.flatMap((t) => [...t, '']),
        ].join('\n'),
      );
    } finally {
      await connection.close();
    }
  } finally {
    await temporal.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
