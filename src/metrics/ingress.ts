import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const OUTCOMES = [
  'delivered',
  'inbox',
  'late',
  'returned',
  'duplicate',
  'unauthorized',
  'forbidden',
  'too_large',
  'timeout',
  'bad_request',
  'unavailable',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Why Node's HTTP server closed a connection before payrun's handler could answer. */
export const CONNECTION_ERRORS = ['timeout', 'malformed'] as const;
export type ConnectionError = (typeof CONNECTION_ERRORS)[number];

const BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The ingress's metrics, served on its internal port. A registry per instance, not prom-client's
 * global one: tests run several ingresses in one process and each must count only its own requests.
 */
export class IngressMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'payrun_ingress_requests_total',
    help: 'Requests to the bank-facing port answered by payrun, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly signals = new Counter({
    name: 'payrun_ingress_signals_total',
    help: 'bankEvent signals sent, to payrun workflows or to the inbox.',
    labelNames: ['to'] as const,
    registers: [this.registry],
  });
  private readonly lookups = new Counter({
    name: 'payrun_ingress_visibility_lookups_total',
    help: 'Visibility queries made to find the workflows of an event that metadata and remembered sessions did not name.',
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'payrun_ingress_request_duration_seconds',
    help: 'Webhook handling time, from first byte to answer.',
    buckets: BUCKETS_SECONDS,
    registers: [this.registry],
  });
  private readonly open = new Gauge({
    name: 'payrun_ingress_connections_open',
    help: 'Connections open on the bank-facing port.',
    registers: [this.registry],
  });
  private readonly dropped = new Counter({
    name: 'payrun_ingress_connections_dropped_total',
    help: 'Connections closed unanswered because the cap was reached.',
    registers: [this.registry],
  });
  private readonly connectionErrors = new Counter({
    name: 'payrun_ingress_connection_errors_total',
    help: 'Connections the HTTP server closed itself: headers or request too slow, or not HTTP.',
    labelNames: ['error'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Every label value from the start: a series that appears only at its first event hides that
    // event from rate() and increase(), and alerts cannot tell "none yet" from "not exported".
    for (const outcome of OUTCOMES) this.requests.inc({ outcome }, 0);
    for (const to of ['workflow', 'inbox'] as const) this.signals.inc({ to }, 0);
    for (const error of CONNECTION_ERRORS) this.connectionErrors.inc({ error }, 0);
  }

  request(outcome: Outcome, seconds: number): void {
    this.requests.inc({ outcome });
    this.duration.observe(seconds);
  }

  signalsSent(to: 'workflow' | 'inbox', n = 1): void {
    this.signals.inc({ to }, n);
  }

  visibilityLookups(n: number): void {
    this.lookups.inc(n);
  }

  connectionOpened(): void {
    this.open.inc();
  }

  connectionClosed(): void {
    this.open.dec();
  }

  /** A connection refused at the cap (INGRESS_MAX_CONNECTIONS): closed unanswered. */
  connectionDropped(): void {
    this.dropped.inc();
  }

  connectionError(error: ConnectionError): void {
    this.connectionErrors.inc({ error });
  }

  /** Prometheus text exposition of every metric above. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
