import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../../src/config';
import { payoutEvents, type PayrunEvent } from '../../src/events/body';
import { DeliveryFailed, deliverPending } from '../../src/events/deliver';
import { writeEvents } from '../../src/events/outbox';

// One payout's refused event holds back that payout's later events only (docs/events.md): the others go on
// in the same round, and each payout's events still arrive in order.

const SECRET = 'deliver-test-secret-of-at-least-32-bytes';
const started = '2026-01-01T00:00:00.000Z';

const eventsOf = (reference: string, at: string) =>
  payoutEvents(
    'batch-1',
    {
      row: 2,
      reference,
      amount: 100,
      state: 'succeeded',
      events: {
        started: at,
        payee: { taxReference: '500100732259', method: { type: 'card', cardNumber: '2200000000000012' } },
        changes: [
          ['creating_session', at],
          ['awaiting_result', at],
          ['succeeded', at],
        ],
      },
    },
    false,
  );

describe('delivering an endpoint’s events', () => {
  let server: Server;
  const seen: PayrunEvent[] = [];
  const refuse = new Set<string>();
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PayrunEvent;
        seen.push(event);
        res.writeHead(refuse.has(event.payout?.reference ?? '') ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a refused payout holds back its own later events and no one else’s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-deliver-'));
    writeFileSync(join(dir, 's'), SECRET);
    const [erp] = loadEventEndpoints({
      [EVENT_ENDPOINTS_VAR]: JSON.stringify([
        { name: 'erp', url, secretFile: join(dir, 's'), types: ['payout.*'] },
      ]),
    });
    // The refused payout's events are the oldest: before, they stopped the round for everyone.
    writeEvents(dir, eventsOf('r-1', started));
    writeEvents(dir, eventsOf('r-2', '2026-01-01T00:00:01.000Z'));
    refuse.add('r-1');
    await expect(deliverPending(dir, erp!)).rejects.toThrow(DeliveryFailed);
    const said = (list: PayrunEvent[]) => list.map((e) => `${e.payout!.reference} ${e.type}`);
    expect(said(seen)).toEqual([
      'r-1 payout.created',
      'r-2 payout.created',
      'r-2 payout.confirmed',
      'r-2 payout.succeeded',
    ]);

    refuse.clear();
    seen.length = 0;
    expect(await deliverPending(dir, erp!)).toEqual({ sent: 3 });
    expect(said(seen)).toEqual(['r-1 payout.created', 'r-1 payout.confirmed', 'r-1 payout.succeeded']);
  });

  it('an endpoint that does not answer ends the round at its first event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-deliver-'));
    writeFileSync(join(dir, 's'), SECRET);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const [down] = loadEventEndpoints({
      [EVENT_ENDPOINTS_VAR]: JSON.stringify([
        {
          name: 'down',
          url: `http://127.0.0.1:${port}/events`,
          secretFile: join(dir, 's'),
          types: ['payout.*'],
        },
      ]),
    });
    writeEvents(dir, eventsOf('r-1', started));
    writeEvents(dir, eventsOf('r-2', started));
    const failed: string[] = [];
    const counters = {
      delivered: () => undefined,
      failed: (e: string) => void failed.push(e),
      outboxAge: () => undefined,
    };
    await expect(deliverPending(dir, down!, { counters })).rejects.toThrow(/not taken/);
    expect(failed).toEqual(['down']);
  });
});
