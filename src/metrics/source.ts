import { Gauge, type Registry } from 'prom-client';
import { createLogger } from '../logger';

const log = createLogger('metrics');

/**
 * How long a scrape waits for a source before reporting it down: a PostgreSQL behind a dead route would
 * otherwise hold the scrape past Prometheus's 10 s and turn the whole target `up=0`.
 */
export const SOURCE_TIMEOUT_MS = 3_000;

export type SourceRead<T> = () => Promise<{ up: true; value: T } | { up: false }>;

const sources = new WeakMap<Registry, Map<string, SourceRead<unknown>>>();

/**
 * A source some gauges read at every scrape (the reconciliation store), read once per scrape however
 * many gauges use it. When it fails or does not answer within `timeoutMs`, those gauges report nothing
 * and `payrun_metric_source_up{source}` says 0, while every other metric of the process still answers:
 * one store's outage is not the process's. The log says so once per outage, not once per scrape.
 */
export function metricSource<T>(
  registry: Registry,
  source: string,
  read: () => Promise<T>,
  timeoutMs = SOURCE_TIMEOUT_MS,
): SourceRead<T> {
  let inflight: ReturnType<SourceRead<T>> | undefined;
  let wasUp = true;
  const once: SourceRead<T> = () =>
    (inflight ??= withTimeout(read(), timeoutMs)
      .then(
        (value) => {
          if (!wasUp) log.info({ source }, 'metric source answers again');
          wasUp = true;
          return { up: true as const, value };
        },
        (err: unknown) => {
          if (wasUp)
            log.warn({ source, err: (err as Error).message }, 'metric source down: its gauges left out');
          wasUp = false;
          return { up: false as const };
        },
      )
      .finally(() => (inflight = undefined)));
  upGauge(registry).set(source, once);
  return once;
}

function upGauge(registry: Registry): Map<string, SourceRead<unknown>> {
  let known = sources.get(registry);
  if (known) return known;
  const all = new Map<string, SourceRead<unknown>>();
  sources.set(registry, all);
  new Gauge({
    name: 'payrun_metric_source_up',
    help: 'Whether a source of other gauges answered this scrape (1) or not (0, those gauges are left out), by source.',
    labelNames: ['source'] as const,
    registers: [registry],
    async collect() {
      const answers = await Promise.all(
        [...all].map(async ([source, read]) => [source, await read()] as const),
      );
      for (const [source, answer] of answers) this.set({ source }, answer.up ? 1 : 0);
    },
  });
  known = all;
  return known;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
