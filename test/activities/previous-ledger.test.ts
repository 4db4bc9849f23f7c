/**
 * activities/recipient.ts `ledgerOf`: what a terminated ledger run held, read back from its history for
 * the run that replaces it. Reservations arrive one per Update or several in one `reserveIncomeMany`;
 * each counts only if the run answered it ok, and one refused as not from a payout is shown again.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { ledgerOf } from '../../activities/recipient';
import {
  reserveIncomeManyUpdate,
  reserveIncomeUpdate,
  type ReserveAnswer,
  type ReserveRequest,
} from '../../workflows/recipient-ledger/contract';

type Event = temporal.api.history.v1.IHistoryEvent;

const client = { options: { loadedDataConverter: loadDataConverter({}) } } as unknown as Client;
const payloads = (...values: unknown[]) => ({
  payloads: values.map((v) => defaultPayloadConverter.toPayload(v)),
});

const accepted = (name: string, updateId: string, arg: unknown): Event => ({
  workflowExecutionUpdateAcceptedEventAttributes: {
    acceptedRequest: { meta: { updateId }, input: { name, args: payloads(arg) } },
  },
});
const completed = (updateId: string, result: unknown): Event => ({
  workflowExecutionUpdateCompletedEventAttributes: {
    meta: { updateId },
    outcome: { success: payloads(result) },
  },
});

const req = (reference: string, amount: number): ReserveRequest => ({
  reference,
  workflowId: `payout-${reference}`,
  runId: '00000000-0000-4000-8000-000000000001',
  amount,
  selfEmployed: true,
});
const AT = '2026-11-27T10:00:00.000Z';
const ok: ReserveAnswer = { ok: true, year: 2026, at: AT };

test('reads reservations answered one by one and several at once, keeping only the ones answered ok', async () => {
  const one = req('r-1', 100);
  const [a, b, c, d] = [req('r-2', 200), req('r-3', 300), req('r-4', 400), req('r-5', 500)];
  const events: Event[] = [
    { workflowExecutionStartedEventAttributes: {} },
    accepted(reserveIncomeUpdate.name, 'reserve-1', one),
    completed('reserve-1', ok),
    accepted(reserveIncomeManyUpdate.name, 'reserve-many-1', [a, b, c, d]),
    completed('reserve-many-1', [
      ok,
      { ok: false, limit: 'yearly_cap', limitKopecks: 1_000, headroomKopecks: 0, year: 2026 },
      { ok: false, unproven: 'no_such_run', reason: 'no such payout run' },
      { ...ok, at: '2026-11-27T11:00:00.000Z' },
    ]),
    // Accepted but never answered (the run was terminated while proving it): not held.
    accepted(reserveIncomeManyUpdate.name, 'reserve-many-2', [req('r-6', 600)]),
  ];
  const previous = await ledgerOf(client, events);
  expect(previous.reservations.map((r) => [r.reference, r.amount, r.at])).toEqual([
    ['r-1', 100, AT],
    ['r-2', 200, AT],
    ['r-5', 500, '2026-11-27T11:00:00.000Z'],
  ]);
  expect(previous.refused?.map((r) => [r.reference, r.why])).toEqual([['r-4', 'no_such_run']]);
});

test('a reserveIncomeMany whose input or answer is not a list holds nothing', async () => {
  const events: Event[] = [
    { workflowExecutionStartedEventAttributes: {} },
    accepted(reserveIncomeManyUpdate.name, 'reserve-many-x', req('r-7', 700)),
    completed('reserve-many-x', [ok]),
    accepted(reserveIncomeManyUpdate.name, 'reserve-many-y', [req('r-8', 800)]),
    completed('reserve-many-y', ok),
  ];
  const previous = await ledgerOf(client, events);
  expect(previous.reservations).toEqual([]);
});
