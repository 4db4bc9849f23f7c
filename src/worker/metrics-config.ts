// Where the worker serves its /metrics (PAYRUN_WORKER_METRICS_ADDRESS, PAYRUN_WORKER_SDK_METRICS_ADDRESS): src/config/worker.ts.
export { loadWorkerMetricsConfig, WORKER_METRICS_VARS, type WorkerMetricsConfig } from '../config/worker';
