import { BankApiError, BankClient } from '../../src/bank';
import { ConfigError } from '../../src/config';
import { Gauge, Registry } from 'prom-client';
import { serveMetrics, WorkerMetrics } from '../../src/metrics';
import { metricSource } from '../../src/metrics/source';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { instrumentBankClient } from '../../src/worker/bank-metrics';
import { loadWorkerMetricsConfig } from '../../src/config';
import { partnerKeys, PROJECT } from '../sandbox/signed-client';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the bank client counted for the worker, against the sandbox over HTTP', () => {
  let sandbox: RunningSandbox;
  let bank: BankClient;
  beforeAll(async () => {
    sandbox = await startSandbox({ projects: [{ id: PROJECT, publicKeyPem: partnerKeys().publicKey }] });
    bank = new BankClient({
      baseUrl: sandbox.url,
      project: PROJECT,
      privateKeyPem: partnerKeys().privateKey,
      apiVersion: 1,
    });
  });
  afterAll(async () => {
    await bank?.close();
    await sandbox?.close();
  });

  it("times each call under its method and counts a failure under the bank's code, passing answers and errors through", async () => {
    const metrics = new WorkerMetrics();
    const counted = instrumentBankClient(bank, metrics);
    const balance = await counted.reports.walletBalance({ request_datetime: new Date().toISOString() });
    expect(balance.wallets.length).toBeGreaterThan(0);
    const err = await counted.sessions
      .status({ session_id: 'no-such-session' }, { maxRetries: 0 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BankApiError);

    const text = await metrics.render();
    expect(sample(text, 'payrun_bank_call_duration_seconds_count{method="reports.walletBalance"}')).toBe(1);
    expect(sample(text, 'payrun_bank_call_duration_seconds_count{method="sessions.status"}')).toBe(1);
    expect(
      sample(
        text,
        `payrun_bank_call_errors_total{method="sessions.status",code="${(err as BankApiError).code}"}`,
      ),
    ).toBe(1);
    expect(text).not.toContain('payrun_bank_call_errors_total{method="reports.walletBalance"');
    // The wrapper is the same client otherwise: closing it closes the bank client's connections.
    expect(typeof counted.close).toBe('function');
  });
});

describe('the worker metrics endpoint', () => {
  it('serves the registry on GET /metrics only, and every ending starts at zero', async () => {
    const metrics = new WorkerMetrics();
    metrics.payoutFinished('succeeded', 'run-1');
    metrics.payoutFinished('succeeded', 'run-1');
    metrics.batchRows(['succeeded', 'already_paid', 'already_paid']);
    // The same recording again (an activity retried after its completion was lost): counted once.
    metrics.batchRows(['expired'], 'run-2/7');
    metrics.batchRows(['expired'], 'run-2/7');
    const server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      expect(sample(text, 'payrun_payouts_finished_total{state="succeeded"}')).toBe(1);
      expect(sample(text, 'payrun_payouts_finished_total{state="needs_attention"}')).toBe(0);
      expect(sample(text, 'payrun_batch_rows_total{state="already_paid"}')).toBe(2);
      expect(sample(text, 'payrun_batch_rows_total{state="expired"}')).toBe(1);
      expect(sample(text, 'payrun_batch_rows_total{state="failed"}')).toBe(0);
      expect((await fetch(`${server.url}/`)).status).toBe(404);
      expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('worker metrics configuration', () => {
  it('defaults to loopback, takes host:port or off for each endpoint', () => {
    expect(loadWorkerMetricsConfig({})).toEqual({
      payrun: { host: '127.0.0.1', port: 9465 },
      sdk: '127.0.0.1:9464',
    });
    expect(
      loadWorkerMetricsConfig({
        PAYRUN_WORKER_METRICS_ADDRESS: '0.0.0.0:9100',
        PAYRUN_WORKER_SDK_METRICS_ADDRESS: '[::1]:9101',
      }),
    ).toEqual({ payrun: { host: '0.0.0.0', port: 9100 }, sdk: '[::1]:9101' });
    expect(
      loadWorkerMetricsConfig({
        PAYRUN_WORKER_METRICS_ADDRESS: 'off',
        PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off',
      }),
    ).toEqual({});
  });

  it('names every bad variable and the form it wants', () => {
    let caught: unknown;
    try {
      loadWorkerMetricsConfig({
        PAYRUN_WORKER_METRICS_ADDRESS: '9465',
        PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'localhost:70000',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'PAYRUN_WORKER_METRICS_ADDRESS (9465): must be host:port (e.g. 0.0.0.0:9465, [::1]:9465) or off',
      'PAYRUN_WORKER_SDK_METRICS_ADDRESS (localhost:70000): must be host:port (e.g. 0.0.0.0:9465, [::1]:9465) or off',
    ]);
  });
});

describe('the metrics endpoint when a source is down', () => {
  it('answers /live, and /metrics 200 with the rest when one metric cannot be read', async () => {
    const registry = new Registry();
    new Gauge({ name: 'payrun_test_fine', help: 'reads fine', registers: [registry] }).set(7);
    new Gauge({
      name: 'payrun_test_broken',
      help: 'its source throws',
      registers: [registry],
      collect() {
        throw new Error('connection refused');
      },
    });
    const server = await serveMetrics(registry, '127.0.0.1', 0);
    try {
      const live = await fetch(`${server.url}/live`);
      expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { live: true } });
      const res = await fetch(`${server.url}/metrics`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(sample(text, 'payrun_test_fine')).toBe(7);
      expect(sample(text, 'payrun_metric_collect_failed{metric="payrun_test_broken"}')).toBe(1);
      expect(text).not.toContain('payrun_test_broken ');
    } finally {
      await server.close();
    }
  });

  it('reports a source that does not answer in time as down, its gauges left out, read once per scrape', async () => {
    const registry = new Registry();
    let reads = 0;
    let hang = false;
    const read = metricSource(
      registry,
      'slow_store',
      async () => {
        reads++;
        if (hang) await new Promise((r) => setTimeout(r, 5_000).unref());
        return 3;
      },
      200,
    );
    for (const name of ['payrun_test_a', 'payrun_test_b'])
      new Gauge({
        name,
        help: 'from the slow store',
        labelNames: ['store'] as const,
        registers: [registry],
        async collect() {
          const answer = await read();
          this.reset();
          if (answer.up) this.set({ store: 'slow' }, answer.value);
        },
      });
    const up = await registry.metrics();
    expect(sample(up, 'payrun_metric_source_up{source="slow_store"}')).toBe(1);
    expect(sample(up, 'payrun_test_b{store="slow"}')).toBe(3);
    expect(reads).toBe(1);
    hang = true;
    const down = await registry.metrics();
    expect(sample(down, 'payrun_metric_source_up{source="slow_store"}')).toBe(0);
    expect(sample(down, 'payrun_test_a{store="slow"}')).toBeUndefined();
  });
});
