/** Hand-written Prometheus text exposition: a few counters and one histogram need no library. */

export const OUTCOMES = [
  'delivered',
  'inbox',
  'duplicate',
  'unauthorized',
  'forbidden',
  'too_large',
  'bad_request',
  'unavailable',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

const BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class IngressMetrics {
  private readonly requests = new Map<Outcome, number>(OUTCOMES.map((o) => [o, 0]));
  private readonly signals = { workflow: 0, inbox: 0 };
  private readonly bucketCounts = BUCKETS_SECONDS.map(() => 0);
  private durationCount = 0;
  private durationSum = 0;

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

  count(outcome: Outcome): number {
    return this.requests.get(outcome) ?? 0;
  }

  render(): string {
    const lines = [
      '# HELP payrun_ingress_requests_total Bank webhook requests by outcome.',
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
    ];
    return lines.join('\n') + '\n';
  }
}
