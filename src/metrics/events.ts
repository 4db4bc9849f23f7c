import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The event outbox's delivery, per endpoint (docs/events.md): what each endpoint took, what it refused
 * (each failed attempt: the retry policy tries again), and how long its oldest pending event has waited
 * — the figure PayrunEventEndpointFailing alerts on.
 */
export function registerEventMetrics(registry: Registry) {
  const delivered = new Counter({
    name: 'payrun_events_delivered_total',
    help: 'Status events an endpoint answered 2xx to, by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: 'payrun_events_failed_total',
    help: 'Attempts to send a status event that the endpoint did not take (error, timeout or non-2xx), by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  const age = new Gauge({
    name: 'payrun_events_outbox_age_seconds',
    help: "How long the endpoint's oldest undelivered event has waited in the outbox (0 when none waits).",
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  return {
    delivered: (endpoint: string) => delivered.inc({ endpoint }),
    failed: (endpoint: string) => failed.inc({ endpoint }),
    outboxAge: (endpoint: string, seconds: number) => age.set({ endpoint }, seconds),
  };
}
