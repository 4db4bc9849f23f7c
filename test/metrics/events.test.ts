import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../../src/config';
import { payoutEvents } from '../../src/events/body';
import { DeliveryFailed, deliverPending } from '../../src/events/deliver';
import { writeEvents } from '../../src/events/outbox';
import { WorkerMetrics } from '../../src/metrics';
import { startEventReceiver } from '../harness/event-receiver';

const SECRET = 'metrics-test-secret-of-at-least-32-bytes';

describe('event delivery metrics', () => {
  it('count what an endpoint took and refused, and how long its oldest event waits', async () => {
    const receiver = await startEventReceiver(SECRET, 0);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'payrun-event-metrics-'));
      writeFileSync(join(dir, 's'), SECRET);
      const [erp] = loadEventEndpoints({
        [EVENT_ENDPOINTS_VAR]: JSON.stringify([
          { name: 'erp', url: receiver.url, secretFile: join(dir, 's'), types: ['payout.*'] },
        ]),
      });
      const started = '2026-01-01T00:00:00.000Z';
      writeEvents(
        dir,
        payoutEvents(
          'batch-1',
          {
            row: 2,
            reference: 'r-1',
            amount: 100,
            state: 'succeeded',
            events: {
              started,
              payee: {
                taxReference: '500100732259',
                method: { type: 'card', cardNumber: '2200000000000012' },
              },
              changes: [
                ['creating_session', started],
                ['awaiting_result', started],
                ['succeeded', started],
              ],
            },
          },
          false,
        ),
      );
      const metrics = new WorkerMetrics();
      const line = async (name: string) =>
        (await metrics.render()).split('\n').find((l) => l.startsWith(`${name}{endpoint="erp"}`));

      receiver.state.down = true;
      await expect(deliverPending(dir, erp!, { counters: metrics.events })).rejects.toBeInstanceOf(
        DeliveryFailed,
      );
      expect(await line('payrun_events_failed_total')).toBe('payrun_events_failed_total{endpoint="erp"} 1');
      expect(Number((await line('payrun_events_outbox_age_seconds'))!.split(' ')[1])).toBeGreaterThanOrEqual(
        0,
      );

      receiver.state.down = false;
      expect(await deliverPending(dir, erp!, { counters: metrics.events })).toEqual({ sent: 3 });
      expect(await line('payrun_events_delivered_total')).toBe(
        'payrun_events_delivered_total{endpoint="erp"} 3',
      );
      expect(await line('payrun_events_outbox_age_seconds')).toBe(
        'payrun_events_outbox_age_seconds{endpoint="erp"} 0',
      );
      expect(receiver.taken.map((t) => t.event.type)).toEqual([
        'payout.created',
        'payout.confirmed',
        'payout.succeeded',
      ]);
      // Delivered ones are not sent again.
      expect(await deliverPending(dir, erp!, { counters: metrics.events })).toEqual({ sent: 0 });
    } finally {
      await receiver.close();
    }
  });
});
