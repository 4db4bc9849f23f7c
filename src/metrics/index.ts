/** payrun's metrics, named once here: the ingress's and the worker's, each on its own prom-client registry. */
export { IngressMetrics, OUTCOMES, CONNECTION_ERRORS, type Outcome, type ConnectionError } from './ingress';
export { WorkerMetrics } from './worker';
export { serveMetrics, type MetricsServer } from './server';
