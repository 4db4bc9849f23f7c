import { ConfigError } from '../config';

/** Where the worker serves its two /metrics endpoints; either may be `off`. */
export interface WorkerMetricsConfig {
  /** payrun's own counters (src/metrics/worker.ts), served by payrun. */
  payrun?: { host: string; port: number };
  /** The Temporal SDK's metrics, served by its Runtime (Core's Prometheus exporter), as `host:port`. */
  sdk?: string;
}

export const WORKER_METRICS_VARS = {
  payrun: 'PAYRUN_WORKER_METRICS_ADDRESS',
  sdk: 'PAYRUN_WORKER_SDK_METRICS_ADDRESS',
} as const;

/** Loopback by default: only a Prometheus on the same host (or a compose setting) reaches them. */
const DEFAULTS = { payrun: '127.0.0.1:9465', sdk: '127.0.0.1:9464' } as const;

export function loadWorkerMetricsConfig(
  env: Record<string, string | undefined> = process.env,
): WorkerMetricsConfig {
  const errors: string[] = [];
  const read = (which: 'payrun' | 'sdk') => {
    const name = WORKER_METRICS_VARS[which];
    const raw = (env[name] ?? '').trim() || DEFAULTS[which];
    if (raw === 'off') return undefined;
    const parsed = parseHostPort(raw);
    if (!parsed) {
      errors.push(`${name} (${raw}): must be host:port (e.g. 0.0.0.0:9465, [::1]:9465) or off`);
      return undefined;
    }
    return parsed;
  };
  const payrun = read('payrun');
  const sdk = read('sdk');
  if (errors.length > 0) throw new ConfigError(errors);
  return {
    ...(payrun ? { payrun } : {}),
    ...(sdk ? { sdk: `${sdk.host.includes(':') ? `[${sdk.host}]` : sdk.host}:${sdk.port}` } : {}),
  };
}

function parseHostPort(raw: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(raw);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65_535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}
