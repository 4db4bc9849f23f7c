// The setting (PAYRUN_WORKER_HEAP_GROWING_PERCENT), its default and why: src/config/worker.ts.
export { DEFAULT_HEAP_GROWING_PERCENT, HEAP_GROWING_VAR, loadHeapGrowingPercent } from '../config/worker';

/** Set before the worker starts its workflow thread; `undefined` (`v8`) gives V8 its own choice back. */
export { boundHeapGrowth } from '../heap';
