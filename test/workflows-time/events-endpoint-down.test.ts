import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventActivities } from '../../activities/events';
import { EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../../src/config';
import { payoutEvents } from '../../src/events/body';
import { writeEvents } from '../../src/events/outbox';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import { eventOutboxWorkflowId } from '../../workflows/event-outbox/contract';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import { workTimeout } from '../harness/budget';
import { startEventReceiver } from '../harness/event-receiver';
import { skipUntil, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';

/**
 * Issue 41: an endpoint down for an hour, then refusing half of what it gets, receives every event of a
 * 200-row batch from the outbox: in order per payout, each signed (docs/events.md's verifier), each id once
 * after deduplication. On the time-skipping server with the delivery's real activities and retry policy
 * (10 s doubling to 10 minutes), so the hour and the retries pass in seconds; the receiver is real HTTP.
 */
const ROWS = 200;
const HOUR = 3_600_000;
const SECRET = 'events-down-an-hour-secret-of-32-bytes!';

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => ts?.teardown());

/** A paid row's outcome as the batch records it: created, confirmed, succeeded (a declined one: failed). */
function outcome(i: number, startMs: number): BatchRowOutcome {
  const at = (s: number) => new Date(startMs + i * 1_000 + s * 100).toISOString();
  const declined = i % 10 === 3;
  return {
    row: i + 2,
    reference: `down-${i}`,
    amount: 100_000 + i,
    state: declined ? 'failed' : 'succeeded',
    sessionId: `ps_${i}`,
    ...(declined
      ? { errorCode: 'declined_by_issuer_bank', reason: 'declined by the issuer bank' }
      : { payoutId: `po_${i}` }),
    events: {
      started: at(0),
      changes: [
        ['creating_session', at(0)],
        ['awaiting_confirmation', at(1)],
        ['awaiting_result', at(2)],
        [declined ? 'failed' : 'succeeded', at(3)],
      ],
      payee: { taxReference: '770000000000', method: { type: 'card', cardNumber: TEST_CARDS.SUCCESS } },
    },
  } as BatchRowOutcome;
}

test(
  'an endpoint down for an hour, then failing half the time, gets every event of 200 rows once, in order',
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payrun-events-down-'));
    const receiver = await startEventReceiver(SECRET, 0.5);
    try {
      const secretFile = join(dataDir, 'erp.secret');
      writeFileSync(secretFile, SECRET);
      const endpoints = loadEventEndpoints({
        [EVENT_ENDPOINTS_VAR]: JSON.stringify([
          { name: 'erp', url: receiver.url, secretFile, types: ['payout.*'] },
        ]),
      });
      const start = await ts.env.currentTimeMs();
      const events = Array.from({ length: ROWS }, (_, i) =>
        payoutEvents('batch-00000000000000aa', outcome(i, start), false),
      ).flat();
      expect(writeEvents(dataDir, events)).toBe(events.length);
      receiver.state.down = true;

      const acts = createEventActivities({ endpoints, client: ts.client, taskQueue: 'unused', dataDir });
      await withStubWorker(ts, acts, async ({ taskQueue }) => {
        const handle = await ts.client.workflow.start('eventOutboxWorkflow', {
          taskQueue,
          workflowId: eventOutboxWorkflowId(taskQueue, 'erp'),
          args: [{ endpoint: 'erp' }], // production's retry policy: nothing shortened
        });
        // An hour down: every attempt refused, nothing taken, nothing given up.
        await ts.env.sleep(HOUR);
        expect(receiver.taken).toEqual([]);
        expect(receiver.seen.length).toBeGreaterThan(5); // retried through the hour, backing off
        receiver.state.down = false;

        const delivered = () => readdirSync(join(dataDir, 'events', 'delivered', 'erp')).length;
        await skipUntil(
          ts,
          async () => receiver.deduplicated().length === events.length,
          'every event delivered',
          10 * 60_000,
        );
        expect(delivered()).toBe(events.length);
        await handle.terminate('the test is over');
      });
      const got = receiver.deduplicated();
      expect(receiver.seen.every((s) => s.signatureValid)).toBe(true);
      expect(new Set(got.map((g) => g.id)).size).toBe(events.length);
      expect(new Set(got.map((g) => g.id))).toEqual(new Set(events.map((e) => e.id)));
      // Per payout, in the order it happened: the sequence rises in what the receiver took first.
      const firstTaken = new Map<string, number[]>();
      for (const { event } of got)
        firstTaken.set(event.payout!.reference, [
          ...(firstTaken.get(event.payout!.reference) ?? []),
          event.sequence,
        ]);
      for (const [reference, sequence] of firstTaken)
        expect({ reference, sequence }).toEqual({ reference, sequence: [...sequence].sort((a, b) => a - b) });
      expect(firstTaken.size).toBe(ROWS);
    } finally {
      await receiver.close();
    }
  },
  workTimeout({ units: ROWS, perUnitMs: 1_000, floorMs: 240_000 }),
);
