import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payoutEvents } from '../../src/events/body';
import { mark, pendingFor, reopen, writeEvents } from '../../src/events/outbox';
import type { BatchRowOutcome } from '../../workflows/batch/contract';

const outcome = (reference: string, started: string): BatchRowOutcome => ({
  row: 2,
  reference,
  amount: 150_000,
  state: 'failed',
  sessionId: 'ps_1',
  payoutId: 'po_1',
  errorCode: 'declined_by_issuer_bank',
  reason: 'Отказ банка-эмитента',
  events: {
    started,
    payee: { taxReference: '500100732259', method: { type: 'card', cardNumber: '2200000000000012' } },
    changes: [
      ['creating_session', started],
      ['awaiting_ready_to_confirm', '2026-01-01T00:00:01.000Z'],
      ['confirming', '2026-01-01T00:00:02.000Z'],
      ['awaiting_result', '2026-01-01T00:00:03.000Z'],
      ['failed', '2026-01-01T00:00:04.000Z'],
    ],
  },
});

describe('payout events from a recorded row', () => {
  it('number each event by its place among the states, mask the card, keep the INN out unless asked', () => {
    const events = payoutEvents('batch-1', outcome('r-1', '2026-01-01T00:00:00.000Z'), false);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([
      ['payout.created', 1],
      ['payout.confirmed', 4],
      ['payout.failed', 5],
    ]);
    const last = events[2]!.payout!;
    expect(last.payee).toEqual({ method: 'card', masked: '220000******0012' });
    expect(last.failure).toEqual({ code: 'declined_by_issuer_bank', bankWords: 'Отказ банка-эмитента' });
    expect(events[0]!.payout!.failure).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain('2200000000000012');
    expect(JSON.stringify(events)).not.toContain('500100732259');
    expect(
      payoutEvents('batch-1', outcome('r-1', '2026-01-01T00:00:00.000Z'), true)[0]!.payout!.payee.inn,
    ).toBe('500100732259');
  });

  it('give the same event the same id, and another run of the reference other ids', () => {
    const a = payoutEvents('batch-1', outcome('r-1', '2026-01-01T00:00:00.000Z'), false).map((e) => e.id);
    const b = payoutEvents('batch-1', outcome('r-1', '2026-01-01T00:00:00.000Z'), false).map((e) => e.id);
    const later = payoutEvents('batch-2', outcome('r-1', '2026-02-01T00:00:00.000Z'), false).map((e) => e.id);
    expect(a).toEqual(b);
    expect(new Set([...a, ...later]).size).toBe(6);
  });
});

describe('the outbox', () => {
  it('keeps each id once, hands an endpoint what it has not taken in order, and reopens a window', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-outbox-'));
    const events = payoutEvents('batch-1', outcome('r-1', '2026-01-01T00:00:00.000Z'), false);
    expect(writeEvents(dir, [...events].reverse())).toBe(3);
    expect(writeEvents(dir, events)).toBe(0);
    expect(readdirSync(join(dir, 'events', 'outbox'))).toHaveLength(3);
    const all = () => pendingFor(dir, 'erp', () => true).map((p) => p.event.sequence);
    expect(all()).toEqual([1, 4, 5]);
    mark(dir, 'delivered', 'erp', events[0]!.id);
    mark(dir, 'dead', 'erp', events[1]!.id);
    expect(all()).toEqual([5]);
    expect(pendingFor(dir, 'other', () => true)).toHaveLength(3);
    expect(reopen(dir, 'erp', '2026-01-01T00:00:03.000Z')).toBe(0); // only the given-up one in the window
    expect(all()).toEqual([4, 5]);
    expect(reopen(dir, 'erp', '2026-01-01T00:00:00.000Z')).toBe(1);
    expect(all()).toEqual([1, 4, 5]);
  });
});
