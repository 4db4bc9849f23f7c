import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { readHistory } from '../../src/batch/services/run-history';
import { TEST_INNS } from '../../src/sandbox/test-values';
import { inboxQuery, type InboxView } from '../../workflows/webhook-inbox/contract';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { carryOf, freshPayoutState, type TrackerSnapshot } from '../../workflows/payout/state';
import { refundWorkflowId } from '../../workflows/refund/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { succeededPayment } from '../harness/payments';
import { payoutRequest } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// Issue 23: anyone who can reach Temporal can send any JSON to any handler and start any workflow type
// with any input. Every handler must note and ignore what it cannot use, never throw (a throwing signal
// handler fails the workflow task for ever), and every input must be refused at start or run.

/** What a hostile sender tries: nothing, null, the wrong shapes and types, and values far too large. */
/** Far above any field's limit, small enough that a handler's few dozen signals stay below 4 MB of history. */
const HUGE_TEXT = 'x'.repeat(60_000);
const HOSTILE: [string, unknown][] = [
  ['null', null],
  ['{}', {}],
  ['[]', []],
  ['a number', 42],
  ['text', 'hello'],
  ['true', true],
  [
    'wrong field types',
    { id: 7, by: 123, type: [], sessionId: {}, replyTo: 5, maxAgeMs: 'soon', batchId: null },
  ],
  ['a huge text', HUGE_TEXT],
  ['an object of huge fields', { id: HUGE_TEXT, by: HUGE_TEXT, reference: HUGE_TEXT, reason: HUGE_TEXT }],
  ['deep nesting', JSON.parse('{"a":'.repeat(200) + '1' + '}'.repeat(200))],
];

/** Every signal and Update of every workflow type, by the names its contract gives them. */
const HANDLERS = {
  payoutWorkflow: {
    query: 'status',
    signals: ['bankEvent', 'taxpayerVerdict', 'approve', 'cancel', 'reportTo'],
    updates: ['approvePayout', 'cancelPayout'],
  },
  batchWorkflow: {
    query: 'progress',
    signals: ['approve', 'reject', 'pause', 'resume', 'cancel', 'payoutSettled', 'fundsChanged'],
    updates: ['approveBatch', 'rejectBatch', 'pauseBatch', 'resumeBatch', 'cancelBatch'],
  },
  refundWorkflow: { query: 'status', signals: ['bankEvent'], updates: [] },
  taxpayerWorkflow: { query: 'verdict', signals: ['taxpayerCheckRequest'], updates: [] },
  webhookInboxWorkflow: { query: 'inbox', signals: ['bankEvent', 'dismissOrphan'], updates: [] },
  connectivityCheckWorkflow: { query: 'connectivityStatus', signals: ['acknowledge'], updates: [] },
} as const;
type WorkflowType = keyof typeof HANDLERS;

/** Workflow tasks that failed: a handler or the input threw where it should have noted and ignored. */
async function failedTasks(client: Client, handle: WorkflowHandle): Promise<string[]> {
  const events = await readHistory(client, handle.workflowId, (await handle.describe()).runId);
  return events.flatMap((e) =>
    e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.failure?.message ?? '?'] : [],
  );
}

describe('every handler and input of every workflow type is total', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  /** A running workflow of each type, waiting where hostile signals can reach it. */
  async function running(type: WorkflowType): Promise<WorkflowHandle> {
    const start = (workflowId: string, args: unknown[]) =>
      stack.client.workflow.start(type, { taskQueue: stack.taskQueue, workflowId, args });
    switch (type) {
      case 'payoutWorkflow': {
        const request = payoutRequest({ selfEmployed: false });
        return start(payoutWorkflowId(request.reference), [{ request, options: { requireApproval: true } }]);
      }
      case 'batchWorkflow': {
        const r = await dropAndSubmit(
          stack,
          batchTestPaths(),
          'total.csv',
          batchCsv([{ reference: `${uniquePrefix()}-a` }]),
          { batchOptions: { requireApproval: true } },
        );
        const handle = batchHandle(stack, r.batchId);
        await waitForProgress(handle, (p) => p.phase === 'awaiting_approval');
        return handle;
      }
      case 'refundWorkflow': {
        const sessionId = await succeededPayment(stack.bank, 10_000);
        const reference = `rf-${randomUUID()}`;
        return start(refundWorkflowId(reference), [{ reference, sessionId, pollAfterMs: 3_600_000 }]);
      }
      case 'taxpayerWorkflow':
        return start(`taxpayer-total-${randomUUID()}`, [{ taxReference: TEST_INNS.SELF_EMPLOYED_LINKED }]);
      case 'webhookInboxWorkflow':
        return start(`inbox-total-${randomUUID()}`, [{ options: { rerouteWindowMs: 1_000 } }]);
      case 'connectivityCheckWorkflow':
        return start(`connectivity-total-${randomUUID()}`, [
          { awaitAcknowledgement: true, acknowledgementTimeoutMs: 600_000 },
        ]);
    }
  }

  it.each(Object.keys(HANDLERS) as WorkflowType[])(
    '%s: null, {}, wrong types and huge values to every signal and Update leave it answering, no task failed',
    async (type) => {
      const { query, signals, updates } = HANDLERS[type];
      const handle = await running(type);
      await handle.query(query); // it answers before…
      for (const signal of signals)
        for (const [, value] of HOSTILE) await handle.signal(signal, value as never);
      await handle.signal(signals[0]); // no argument at all
      for (const update of updates)
        for (const [, value] of HOSTILE)
          // Refused by its validator (or answered): either way the caller hears, and history keeps nothing.
          await handle.executeUpdate(update, { args: [value] }).catch((err: unknown) => err);
      // …and after: a query is answered by the latest state, once every signal above was processed.
      await waitFor(
        async () => !(await handle.describe()).raw.pendingWorkflowTask,
        60_000,
        'every signal processed',
      );
      const answer = await handle.query<{ state?: string }>(query);
      const status = (await handle.describe()).status.name;
      // The sandbox's signed payment_refunded may reach a refund through the ingress before this point
      // on a slow machine: finishing as refunded is its own work, not the hostile signals' doing.
      if (type === 'refundWorkflow' && status === 'COMPLETED') expect(answer.state).toBe('refunded');
      else expect(status).toBe('RUNNING');
      expect(await failedTasks(stack.client, handle)).toEqual([]);
      if (status === 'RUNNING') await handle.terminate('test over');
    },
  );

  it.each(Object.keys(HANDLERS) as WorkflowType[])(
    '%s started with hostile input: refused invalid_input at once, or runs and answers; never a failing task',
    async (type) => {
      for (const [, value] of HOSTILE) {
        const handle = await stack.client.workflow.start(type, {
          taskQueue: stack.taskQueue,
          workflowId: `hostile-${type}-${randomUUID()}`,
          args: [value] as never,
        });
        await waitFor(
          async () => {
            const { events } = await handle.fetchHistory();
            return (events ?? []).some(
              (e) => e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes,
            );
          },
          60_000,
          `${type}'s first task`,
        );
        expect(await failedTasks(stack.client, handle)).toEqual([]);
        const { status } = await handle.describe();
        if (status.name === 'RUNNING') {
          await handle.query(HANDLERS[type].query);
          await handle.terminate('test over');
        } else {
          const err = await handle.result().catch((e: unknown) => e);
          expect(err).toBeInstanceOf(WorkflowFailedError);
          expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('invalid_input');
        }
      }
    },
  );

  it('a payout started with a carry is refused before any command: only its own continue-as-new hands one', async () => {
    const request = payoutRequest({ selfEmployed: false });
    // A carry of the right shape, as a run would hand it: the shape is not what lets it in.
    const carry = carryOf(freshPayoutState(), {
      status: { state: 'succeeded', timestamps: {} },
    } as unknown as TrackerSnapshot);
    const handle = await stack.client.workflow.start('payoutWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: payoutWorkflowId(request.reference),
      args: [{ request }, carry] as never,
    });
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect({ type: cause.type, message: cause.message }).toEqual({
      type: 'invalid_input',
      message: 'only the payout itself may hand a run its state (by continuing as new)',
    });
    const { events } = await handle.fetchHistory();
    const commands = (events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes,
    );
    expect(commands).toEqual([]);
  });

  it('the webhook inbox survives null to dismissOrphan and bankEvent and still keeps an orphan event', async () => {
    const inbox = await running('webhookInboxWorkflow');
    const orphan = {
      id: `orphan-${randomUUID()}`,
      type: 'payment_finished',
      sessionId: `ps_nobody_${randomUUID()}`,
      receivedAt: new Date().toISOString(),
    };
    await inbox.signal('bankEvent', null as never);
    await inbox.signal('bankEvent', orphan as never);
    const view = () => inbox.query<InboxView>(inboxQuery.name);
    await waitFor(
      async () => (await view()).orphaned.some((o) => o.event.id === orphan.id),
      60_000,
      'orphaned',
    );
    await inbox.signal('dismissOrphan', null as never);
    await inbox.signal('dismissOrphan', { id: orphan.id } as never); // anonymous: refused
    await inbox.signal('bankEvent', orphan as never); // the bank resends: kept once
    await waitFor(async () => (await view()).ignoredMalformed >= 3, 60_000, 'the malformed signals noted');
    const after = await view();
    expect(after.orphaned.filter((o) => o.event.id === orphan.id)).toHaveLength(1);
    expect(await failedTasks(stack.client, inbox)).toEqual([]);
    await inbox.signal('dismissOrphan', { id: orphan.id, by: 'oncall' } as never);
    await waitFor(async () => (await view()).dismissedCount === 1, 60_000, 'dismissed by a named operator');
    await inbox.terminate('test over');
  });
});
