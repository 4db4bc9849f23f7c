import { setFlagsFromString } from 'node:v8';

/**
 * How far past what it keeps alive a V8 heap may grow before a full collection, for the whole process.
 * V8 picks the factor itself, up to about 4× for a process that allocates fast: `payrun batch submit` of a
 * 1 000 000-row file kept some 20 MB live yet peaked at 332 MB, against 236 MB at 150 000 rows, because
 * garbage piled up the longer it read (docs/performance.md, "Submitting a large file"). A fixed factor
 * keeps each heap near what is live, at the price of more frequent collections. V8 reads it at each full
 * collection, so it holds for heaps that exist already. `undefined`: V8's own choice again (0 unsets it).
 */
export function boundHeapGrowth(percent: number | undefined): void {
  setFlagsFromString(`--heap-growing-percent=${percent ?? 0}`);
}

/** What every payrun process starts with; the worker may set its own (PAYRUN_WORKER_HEAP_GROWING_PERCENT). */
export const PROCESS_HEAP_GROWING_PERCENT = 30;
