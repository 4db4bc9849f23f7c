import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../../src/config';
import { nudgeDelivery } from '../../src/events/nudge';
import { batchCsv, batchHandle, batchTestPaths, dropAndSubmit, uniquePrefix } from '../harness/batches';
import { workTimeout } from '../harness/budget';
import { startEventReceiver } from '../harness/event-receiver';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';

const ROWS = 10;
const SECRET = 'events-crash-secret-of-at-least-32-bytes';

// The worker process is SIGKILLed while an event is on the wire (the receiver read it and never
// answered): the next worker sends what was pending, the event on the wire under the same id.
describe('event delivery across a worker killed mid-delivery', () => {
  let stack: Stack;
  let worker: ChildProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startEventReceiver>>;
  beforeAll(async () => {
    stack = await startStack({ inProcessWorker: false });
    receiver = await startEventReceiver(SECRET, 0);
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await stack?.stop();
    await receiver?.close();
  });

  it(
    'loses nothing and never sends one event under two ids',
    async () => {
      const paths = batchTestPaths();
      const dir = mkdtempSync(join(tmpdir(), 'payrun-events-crash-'));
      writeFileSync(join(dir, 'erp.secret'), SECRET);
      const setting = JSON.stringify([
        {
          name: 'erp',
          url: receiver.url,
          secretFile: join(dir, 'erp.secret'),
          types: ['payout.*', 'batch.*'],
        },
      ]);
      const env = { ...stack.workerEnv, PAYRUN_DATA_DIR: paths.dataDir, [EVENT_ENDPOINTS_VAR]: setting };
      const endpoints = loadEventEndpoints({ [EVENT_ENDPOINTS_VAR]: setting });
      // Started here first, with a short heartbeat, so the killed attempt is noticed in seconds.
      await nudgeDelivery(stack.client, stack.taskQueue, endpoints, {
        firstRetryMs: 100,
        longestRetryMs: 1_000,
        heartbeatMs: 3_000,
      });
      receiver.state.holdFrom = 5;
      worker = spawnWorkerProcess(env);
      const p = uniquePrefix();
      const rows = Array.from({ length: ROWS }, (_, i) => ({ reference: `${p}-${i}` }));
      const r = await dropAndSubmit(stack, paths, 'crash.csv', batchCsv(rows));

      await receiver.state.held;
      await killHard(worker);
      receiver.state.holdFrom = undefined;
      worker = spawnWorkerProcess(env);

      const result = await batchHandle(stack, r.batchId).result();
      expect(result.counts).toEqual({ succeeded: ROWS });
      const outbox = () => readdirSync(join(paths.dataDir, 'events', 'outbox')).length;
      await waitFor(
        async () =>
          receiver.deduplicated().length === outbox() &&
          receiver.deduplicated().some((t) => t.event.type === 'batch.finished'),
        workTimeout({ units: ROWS, perUnitMs: 3_000, floorMs: 90_000 }),
        'every event in the outbox delivered after the kill',
      );
      const got = receiver.deduplicated();
      expect(got.length).toBe(ROWS * 3 + 2);
      for (const { reference } of rows)
        expect(got.filter((g) => g.event.payout?.reference === reference).map((g) => g.event.type)).toEqual([
          'payout.created',
          'payout.confirmed',
          'payout.succeeded',
        ]);
      // The held event was sent again after the kill, under its own id, and nothing came under two ids.
      const idsOf = new Map<string, Set<string>>();
      for (const s of receiver.seen) {
        const key = `${s.event.payout?.reference ?? s.event.batch?.batchId}/${s.event.type}/${s.event.sequence}`;
        idsOf.set(key, (idsOf.get(key) ?? new Set()).add(s.id));
      }
      expect([...idsOf.values()].every((ids) => ids.size === 1)).toBe(true);
      expect(receiver.seen.length).toBeGreaterThan(got.length);
      expect(receiver.seen.every((s) => s.signatureValid)).toBe(true);
    },
    workTimeout({ units: ROWS, perUnitMs: 15_000, floorMs: 300_000 }),
  );
});
