import { setFlagsFromString } from 'node:v8';

// The setting (PAYRUN_WORKER_HEAP_GROWING_PERCENT), its default and why: src/config/worker.ts.
export { DEFAULT_HEAP_GROWING_PERCENT, HEAP_GROWING_VAR, loadHeapGrowingPercent } from '../config/worker';

/**
 * Sets the factor for every heap of this process, before the worker starts its workflow thread. V8 reads
 * it at each full collection, so it also holds for the main thread's heap, which exists already.
 */
export function boundHeapGrowth(percent: number | undefined): void {
  if (percent !== undefined) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
