import type { Client } from '@temporalio/client';
import { Gauge, type Registry } from 'prom-client';
import { STATE } from '../../workflows/shared/search-attributes';
import { metricSource } from './source';

/**
 * Payouts of this task queue asleep until their pay_on date (issue 42), counted by Temporal's visibility
 * at every scrape (the rows' own PayrunState, workflows/payout/schedule.ts), so every worker of the queue
 * reports the same figure, and a restarted one at once. Visibility down: the gauge is left out and
 * payrun_metric_source_up{source="temporal_visibility"} says 0.
 */
export function registerScheduledMetrics(registry: Registry, client: Client, taskQueue: string): void {
  const query = `${STATE.name} = "scheduled" AND ExecutionStatus = "Running" AND TaskQueue = "${taskQueue}"`;
  const read = metricSource(
    registry,
    'temporal_visibility',
    async () => (await client.workflow.count(query)).count,
  );
  new Gauge({
    name: 'payrun_payouts_scheduled',
    help: 'Payouts of this task queue asleep until their pay_on date (Temporal visibility, read at each scrape).',
    registers: [registry],
    async collect() {
      const answer = await read();
      this.reset();
      if (answer.up) this.set(answer.value);
    },
  });
}
