import { ConfigError, type Env } from './core';

export const HEAP_GROWING_VAR = 'PAYRUN_WORKER_HEAP_GROWING_PERCENT';

/**
 * How far past what it keeps alive each V8 heap of the worker (the main thread's and the workflow
 * thread's) may grow before a full collection. V8 picks the factor itself, up to about 4× for a busy
 * process: during a 100 000-row batch the worker's heaps swung between about 190 and 470 MB and its RSS
 * crept up for many minutes, so a short batch peaked far lower than a long one (docs/performance-history.md,
 * "The worker's heap, bounded"). A fixed factor keeps the heaps near what is live, at the price of
 * more frequent collections.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 30;

/** The percentage to use, or undefined for V8's own choice (`PAYRUN_WORKER_HEAP_GROWING_PERCENT=v8`). */
export function loadHeapGrowingPercent(env: Env = process.env): number | undefined {
  const raw = (env[HEAP_GROWING_VAR] ?? '').trim();
  if (raw === '') return DEFAULT_HEAP_GROWING_PERCENT;
  if (raw === 'v8') return undefined;
  const percent = Number(raw);
  if (!/^\d+$/.test(raw) || percent < 10 || percent > 300)
    throw new ConfigError([`${HEAP_GROWING_VAR} (${raw}): a whole number of percent from 10 to 300, or v8`]);
  return percent;
}

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
const METRICS_DEFAULTS = { payrun: '127.0.0.1:9465', sdk: '127.0.0.1:9464' } as const;

export function loadWorkerMetricsConfig(env: Env = process.env): WorkerMetricsConfig {
  const errors: string[] = [];
  const read = (which: 'payrun' | 'sdk') => {
    const name = WORKER_METRICS_VARS[which];
    const raw = (env[name] ?? '').trim() || METRICS_DEFAULTS[which];
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
  if (payrun && sdk && payrun.port !== 0 && payrun.port === sdk.port && payrun.host === sdk.host)
    errors.push(
      `${WORKER_METRICS_VARS.payrun} and ${WORKER_METRICS_VARS.sdk} (${addressText(payrun)}): must differ, each serves its own /metrics`,
    );
  if (errors.length > 0) throw new ConfigError(errors);
  return {
    ...(payrun ? { payrun } : {}),
    ...(sdk ? { sdk: addressText(sdk) } : {}),
  };
}

const addressText = (a: { host: string; port: number }) =>
  `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;

function parseHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65_535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}
