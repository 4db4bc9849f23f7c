import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { createRoutingActivities } from '../../activities/routing';
import { bankEventSignal, type BankEventSignal } from '../../workflows/shared/bank-event-contract';
import { inboxQuery } from '../../workflows/webhook-inbox/contract';
import { webhookInboxWorkflow } from '../../workflows/webhook-inbox/workflow';
import { recordHistoryIfAsked } from '../harness/replay';
import { connectClient, startTestWorker, type TestWorker } from '../harness/temporal';

/** The inbox workflow on its own, signalled directly: dedupe and continue-as-new with its state. */

let client: Client;
let closeClient: () => Promise<void>;
let worker: TestWorker;

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  worker = await startTestWorker({ activities: createRoutingActivities(client) });
});
afterAll(async () => {
  await worker?.stop();
  await closeClient?.();
});

const topup = (n: number): BankEventSignal => ({
  id: `topup-${n}`,
  type: 'nominal_topup',
  receivedAt: new Date(Date.UTC(2025, 4, 14, 7, n)).toISOString(),
  body: {
    type: 'nominal_topup',
    amount: 1_000 * n,
    account_balance: 50_000 + n,
    currency: 'RUB',
    paymentDate: '2025-05-14',
    account_number: '40702810000000000001',
    doc_id: `d-${n}`,
    doc_num: n,
  },
});

it('keeps its events, once each, across continue-as-new; orphans come along', async () => {
  const workflowId = `inbox-${randomUUID()}`;
  const handle = await client.workflow.start(webhookInboxWorkflow, {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [
      { options: { continueAsNewAfterEvents: 25, rerouteWindowMs: 1_000, rerouteInitialIntervalMs: 200 } },
    ],
  });
  const firstRunId = handle.firstExecutionRunId;
  const orphan: BankEventSignal = {
    id: 'lonely',
    type: 'payment_finished',
    sessionId: `ps_${randomUUID()}`,
    receivedAt: '2025-05-14T07:00:00.000Z',
    session: { id: 'ps_lonely', status: 'accepted' },
  };
  await handle.signal(bankEventSignal, orphan);
  for (let n = 1; n <= 12; n++) {
    await handle.signal(bankEventSignal, topup(n));
    await handle.signal(bankEventSignal, topup(n)); // the bank resent it
  }
  await handle.signal(bankEventSignal, {
    id: 'odd',
    type: 'unknown',
    receivedAt: '2025-05-14T08:00:00.000Z',
    body: { a: 1 },
  });

  const deadline = Date.now() + 30_000;
  let view = await handle.query(inboxQuery);
  while ((view.orphaned.length < 1 || view.unknown.length < 1) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    view = await handle.query(inboxQuery);
  }
  const current = await client.workflow.getHandle(workflowId).describe();
  expect(current.runId).not.toBe(firstRunId); // it did continue as new at least once
  expect(view.topups.map((t) => t.id)).toEqual(Array.from({ length: 12 }, (_, i) => `topup-${i + 1}`));
  expect(view.topups[11]).toEqual(
    expect.objectContaining({ amount: 12_000, accountBalance: 50_012, docId: 'd-12', docNum: '12' }),
  );
  expect(view.orphaned.map((o) => o.event.id)).toEqual(['lonely']);
  expect(view.unknown).toEqual([{ id: 'odd', receivedAt: '2025-05-14T08:00:00.000Z', body: { a: 1 } }]);
  expect(view.pending).toEqual([]);

  // A resend after continue-as-new is still recognised (the seen ids were carried over).
  await handle.signal(bankEventSignal, topup(1));
  expect((await handle.query(inboxQuery)).topups).toHaveLength(12);
  await recordHistoryIfAsked('webhook-inbox', client.workflow.getHandle(workflowId));
});
