/** payrun's metrics, named once here: the ingress's and the worker's, each on its own prom-client registry. */
import { collectDefaultMetrics, type Registry } from 'prom-client';

export { IngressMetrics, OUTCOMES, CONNECTION_ERRORS, type Outcome, type ConnectionError } from './ingress';
export { WorkerMetrics } from './worker';
export { registerScheduledMetrics } from './scheduled';
export { serveMetrics, type MetricsServer, type ReadyProbe } from './server';

/**
 * prom-client's process metrics (CPU, resident memory, event-loop lag, GC, handles) on a process's
 * registry. Production entry points only: each call starts its own event-loop monitor, and tests make
 * many registries in one process.
 */
export function addProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
}
