/** Hand-written Prometheus text exposition: a few counters and one histogram need no library. */

export const OUTCOMES = [
  'delivered',
  'inbox',
  'late',
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

export class IngressMetrics {
  private readonly requests = new Map<Outcome, number>(OUTCOMES.map((o) => [o, 0]));
  private readonly signals = { workflow: 0, inbox: 0 };
  private readonly bucketCounts = BUCKETS_SECONDS.map(() => 0);
  private durationCount = 0;
  private durationSum = 0;
  private readonly connectionErrors = new Map<ConnectionError, number>(CONNECTION_ERRORS.map((e) => [e, 0]));
  private dropped = 0;
  private openConnections = 0;

  request(outcome: Outcome, seconds: number): void {
    this.requests.set(outcome, (this.requests.get(outcome) ?? 0) + 1);
    this.durationCount++;
    this.durationSum += seconds;
    BUCKETS_SECONDS.forEach((le, i) => {
      if (seconds <= le) this.bucketCounts[i]!++;
    });
  }

  signalsSent(to: 'workflow' | 'inbox', n = 1): void {
    this.signals[to] += n;
  }

  connectionOpened(): void {
    this.openConnections++;
  }

  connectionClosed(): void {
    this.openConnections--;
  }

  /** A connection refused at the cap (INGRESS_MAX_CONNECTIONS): closed unanswered. */
  connectionDropped(): void {
    this.dropped++;
  }

  connectionError(error: ConnectionError): void {
    this.connectionErrors.set(error, (this.connectionErrors.get(error) ?? 0) + 1);
  }

  count(outcome: Outcome): number {
    return this.requests.get(outcome) ?? 0;
  }

  render(): string {
    const lines = [
      '# HELP payrun_ingress_requests_total Requests to the bank-facing port answered by payrun, by outcome.',
      '# TYPE payrun_ingress_requests_total counter',
      ...OUTCOMES.map((o) => `payrun_ingress_requests_total{outcome="${o}"} ${this.count(o)}`),
      '# HELP payrun_ingress_signals_total bankEvent signals sent, to payrun workflows or to the inbox.',
      '# TYPE payrun_ingress_signals_total counter',
      `payrun_ingress_signals_total{to="workflow"} ${this.signals.workflow}`,
      `payrun_ingress_signals_total{to="inbox"} ${this.signals.inbox}`,
      '# HELP payrun_ingress_request_duration_seconds Webhook handling time, from first byte to answer.',
      '# TYPE payrun_ingress_request_duration_seconds histogram',
      ...BUCKETS_SECONDS.map(
        (le, i) => `payrun_ingress_request_duration_seconds_bucket{le="${le}"} ${this.bucketCounts[i]}`,
      ),
      `payrun_ingress_request_duration_seconds_bucket{le="+Inf"} ${this.durationCount}`,
      `payrun_ingress_request_duration_seconds_sum ${this.durationSum}`,
      `payrun_ingress_request_duration_seconds_count ${this.durationCount}`,
      '# HELP payrun_ingress_connections_open Connections open on the bank-facing port.',
      '# TYPE payrun_ingress_connections_open gauge',
      `payrun_ingress_connections_open ${this.openConnections}`,
      '# HELP payrun_ingress_connections_dropped_total Connections closed unanswered because the cap was reached.',
      '# TYPE payrun_ingress_connections_dropped_total counter',
      `payrun_ingress_connections_dropped_total ${this.dropped}`,
      '# HELP payrun_ingress_connection_errors_total Connections the HTTP server closed itself: headers or request too slow, or not HTTP.',
      '# TYPE payrun_ingress_connection_errors_total counter',
      ...CONNECTION_ERRORS.map(
        (e) => `payrun_ingress_connection_errors_total{error="${e}"} ${this.connectionErrors.get(e) ?? 0}`,
      ),
    ];
    return lines.join('\n') + '\n';
  }
}
