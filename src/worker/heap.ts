import { setFlagsFromString } from 'node:v8';
import { ConfigError, type Env } from '../config';

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

/**
 * Sets the factor for every heap of this process, before the worker starts its workflow thread. V8 reads
 * it at each full collection, so it also holds for the main thread's heap, which exists already.
 */
export function boundHeapGrowth(percent: number | undefined): void {
  if (percent !== undefined) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
