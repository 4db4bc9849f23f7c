import type { ChildProcess } from 'node:child_process';
import type { BatchPaths } from '../../src/batch/services/config';
import { freePort } from '../../src/devserver/ports';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import { batchCsv, batchHandle, batchTestPaths, dropAndSubmit, uniquePrefix } from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { killHard, spawnWorkerProcess } from '../harness/worker-process';

/** One sample's value from Prometheus text, by its exact series (name and labels as exposed). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`${url}/metrics answered ${res.status}`);
  return res.text();
}

// `payrun worker` as production runs it (its own process, both metrics endpoints), one small batch,
// then the three /metrics endpoints scraped over HTTP as Prometheus would.
describe('metrics after a small batch', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let worker: ChildProcess | undefined;
  let workerMetricsUrl: string;
  let sdkMetricsUrl: string;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack({ inProcessWorker: false });
    const [payrunPort, sdkPort] = [await freePort(), await freePort()];
    workerMetricsUrl = `http://127.0.0.1:${payrunPort}`;
    sdkMetricsUrl = `http://127.0.0.1:${sdkPort}`;
    worker = spawnWorkerProcess({
      ...stack.workerEnv,
      PAYRUN_WORKER_METRICS_ADDRESS: `127.0.0.1:${payrunPort}`,
      PAYRUN_WORKER_SDK_METRICS_ADDRESS: `127.0.0.1:${sdkPort}`,
    });
    await waitFor(
      () =>
        scrape(workerMetricsUrl).then(
          () => true,
          () => false,
        ),
      60_000,
      "the worker's /metrics answering",
    );
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await stack?.stop();
  });

  it('counts payouts and rows by state, bank calls and errors by method, webhooks by outcome', async () => {
    const before = await scrape(workerMetricsUrl);
    // Every state starts as a zero series, so alerts see "none yet" rather than "no data".
    expect(sample(before, 'payrun_payouts_finished_total{state="needs_attention"}')).toBe(0);
    expect(sample(before, 'payrun_batch_rows_total{state="reference_conflict"}')).toBe(0);
    const ingressBefore = await scrape(stack.ingress.internalUrl);
    const delivered0 = sample(ingressBefore, 'payrun_ingress_requests_total{outcome="delivered"}')!;
    const signals0 = sample(ingressBefore, 'payrun_ingress_signals_total{to="workflow"}')!;

    const p = uniquePrefix();
    const submitted = await dropAndSubmit(
      stack,
      paths,
      'metrics.csv',
      batchCsv([
        { reference: `${p}-ok`, amount: '100,00' },
        // The bank answers the first initPayoutFiscalization 500 internal_error; Temporal's retry pays it.
        { reference: `${p}-once`, amount: '200,00', card: TEST_CARDS.INTERNAL_ERROR_ONCE },
        { reference: `${p}-declined`, amount: '300,00', card: TEST_CARDS.DECLINED_BY_ISSUER },
        { reference: `${p}-notse`, amount: '400,00', inn: TEST_INNS.NOT_SELF_EMPLOYED },
      ]),
    );
    if (submitted.status !== 'started') throw new Error(`not started: ${JSON.stringify(submitted)}`);
    const result = await batchHandle(stack, submitted.batchId).result();
    expect(result.counts).toEqual({ succeeded: 2, failed: 1, rejected: 1 });

    // The batch's result comes after its children's; their sink calls may land a moment later.
    const payouts = (t: string, state: string) =>
      sample(t, `payrun_payouts_finished_total{state="${state}"}`);
    let text = '';
    await waitFor(
      async () => {
        text = await scrape(workerMetricsUrl);
        return (
          (payouts(text, 'succeeded') ?? 0) +
            (payouts(text, 'failed') ?? 0) +
            (payouts(text, 'rejected') ?? 0) >=
          4
        );
      },
      30_000,
      'four payouts counted',
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the worker exposed:\n${text}`);
    });
    expect({
      succeeded: payouts(text, 'succeeded'),
      failed: payouts(text, 'failed'),
      rejected: payouts(text, 'rejected'),
      needs_attention: payouts(text, 'needs_attention'),
    }).toEqual({ succeeded: 2, failed: 1, rejected: 1, needs_attention: 0 });
    const rows = (state: string) => sample(text, `payrun_batch_rows_total{state="${state}"}`);
    expect({ succeeded: rows('succeeded'), failed: rows('failed'), rejected: rows('rejected') }).toEqual({
      succeeded: 2,
      failed: 1,
      rejected: 1,
    });

    const calls = (method: string) =>
      sample(text, `payrun_bank_call_duration_seconds_count{method="${method}"}`) ?? 0;
    // ok, declined, and the internal_error one twice; three self-employed rows checked with the tax service.
    expect(calls('sessions.initPayoutFiscalization')).toBeGreaterThanOrEqual(4);
    expect(calls('npd.check')).toBeGreaterThanOrEqual(1);
    expect(calls('sessions.confirm')).toBeGreaterThanOrEqual(2);
    expect(
      sample(
        text,
        'payrun_bank_call_errors_total{method="sessions.initPayoutFiscalization",code="internal_error"}',
      ),
    ).toBe(1);
    expect(text).toContain(
      'payrun_bank_call_duration_seconds_bucket{le="+Inf",method="sessions.initPayoutFiscalization"}',
    );

    // `payrun worker` adds prom-client's process metrics (the dashboard's CPU, memory, event-loop panels).
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds ');

    const ingress = await scrape(stack.ingress.internalUrl);
    expect(sample(ingress, 'payrun_ingress_requests_total{outcome="delivered"}')!).toBeGreaterThan(
      delivered0,
    );
    expect(sample(ingress, 'payrun_ingress_signals_total{to="workflow"}')!).toBeGreaterThan(signals0);

    // The Temporal SDK's own exporter, on its own port: task latencies the alerts in docs/operations.md use.
    const sdk = await scrape(sdkMetricsUrl);
    // Core exports durations in milliseconds (le="100", …), which the PromQL in the docs assumes.
    expect(sdk).toMatch(/^temporal_workflow_task_schedule_to_start_latency_bucket\{.*le="1000"\}/m);
    expect(sdk).toMatch(/^temporal_workflow_failed\{.*workflow_type="payoutWorkflow"\} 2$/m);
    expect(sdk).toMatch(/^temporal_activity_schedule_to_start_latency_bucket\{.*le="1000"\}/m);
  });
});
