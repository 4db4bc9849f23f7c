import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../src/devserver';
import { freePort } from '../../src/devserver/ports';
import { startScratchPostgres, type ScratchPostgres } from '../harness/postgres';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, readyAt, spawnWorkerProcess } from '../harness/worker-process';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_150S = underLoad(150_000);
const TIMEOUT_300S = underLoad(300_000);

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

const STORE_UP = 'payrun_metric_source_up{source="reconciliation_store"}';

/**
 * Health that tells the truth (issue 40): a PostgreSQL outage is the store's, not the worker's. Its
 * liveness holds, /metrics answers with the store's gauges reported down, and it stays ready because it
 * still polls Temporal; only a worker that cannot poll (its server gone) is not ready, and it is still live.
 */
describe("a worker's health", () => {
  let stack: Stack;
  let pg: ScratchPostgres | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({ inProcessWorker: false });
    pg = await startScratchPostgres();
  });
  afterAll(async () => {
    for (const c of children) await killHard(c);
    await pg?.stop().catch(() => {}); // stopped by the test already, unless it failed before
    await stack?.stop();
  });

  it('stays live, ready and scraped while PostgreSQL is down; the store gauge says so', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'payrun-health-'));
    children.push(
      spawnWorkerProcess({
        ...stack.workerEnv,
        PAYRUN_DATA_DIR: join(dir, 'data'),
        PAYRUN_BATCHES_DIR: join(dir, 'batches'),
        PAYRUN_BATCH_STORE: 'postgres',
        PAYRUN_BATCH_STORE_URL: pg!.url,
        PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
      }),
    );
    await waitFor(async () => (await readyAt(port)).status === 200, 120_000, 'the worker ready');
    const before = await get(port, '/metrics');
    expect(before.status).toBe(200);
    expect(sample(before.text, STORE_UP)).toBe(1);

    await pg!.stop();
    pg = undefined;
    let during = { status: 0, text: '' };
    await waitFor(
      async () => {
        during = await get(port, '/metrics');
        return sample(during.text, STORE_UP) === 0;
      },
      30_000,
      'the store reported down',
    );
    expect(during.status).toBe(200);
    // The store's own gauges are left out; the rest of the worker's metrics answer as before.
    expect(during.text).not.toContain('payrun_reconciliation_open_differences{');
    expect(sample(during.text, 'payrun_payouts_finished_total{state="succeeded"}')).toBe(0);
    expect(during.text).toContain('process_resident_memory_bytes ');
    expect(await get(port, '/live')).toEqual({ status: 200, text: '{"live":true}\n' });
    // Still polling Temporal: ready, since work can still reach it.
    expect((await readyAt(port)).status).toBe(200);
  });

  it(
    'turns not ready, and stays live and scraped, when its Temporal server goes away',
    async () => {
      // A server of its own, so stopping it leaves the other suites' server alone.
      const dir = mkdtempSync(join(tmpdir(), 'payrun-health-temporal-'));
      const own = await startDevServer({
        dbFile: join(dir, 'temporal.db'),
        logFile: join(dir, 'temporal.log'),
      });
      let stopped = false;
      try {
        const port = await freePort();
        children.push(
          spawnWorkerProcess({
            ...stack.workerEnv,
            TEMPORAL_ADDRESS: own.address,
            PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${port}`,
          }),
        );
        await waitFor(async () => (await readyAt(port)).status === 200, 120_000, 'the worker ready');
        await own.stop();
        stopped = true;
        const stoppedAt = Date.now();
        let ready = await readyAt(port);
        // The worker asks the server who polls every 5 s; an unanswered question turns it not ready.
        await waitFor(
          async () => (ready = await readyAt(port)).status === 503,
          TIMEOUT_150S,
          'the worker not ready',
        );
        process.stderr.write(
          `[health] not ready ${Date.now() - stoppedAt} ms after its server stopped: ${ready.reasons.join('; ')}\n`,
        );
        // Said by the question that failed (bounded), not by the staleness limit of a question that hung.
        expect(ready.reasons).toContainEqual(expect.stringMatching(/^the server did not say who polls /));
        expect((await get(port, '/live')).status).toBe(200);
        expect((await get(port, '/metrics')).status).toBe(200);
      } finally {
        if (!stopped) await own.stop();
      }
    },
    TIMEOUT_300S,
  );
});
