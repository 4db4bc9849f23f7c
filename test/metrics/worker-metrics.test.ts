import { BankApiError, BankClient } from '../../src/bank';
import { ConfigError } from '../../src/config';
import { serveMetrics, WorkerMetrics } from '../../src/metrics';
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
    const server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
    try {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      expect(sample(text, 'payrun_payouts_finished_total{state="succeeded"}')).toBe(1);
      expect(sample(text, 'payrun_payouts_finished_total{state="needs_attention"}')).toBe(0);
      expect(sample(text, 'payrun_batch_rows_total{state="already_paid"}')).toBe(2);
      expect(sample(text, 'payrun_batch_rows_total{state="expired"}')).toBe(0);
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
