import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import {
  callsOf,
  skipUntil,
  startTimeSkipping,
  withStubWorker,
  type StubActivities,
  type StubCall,
  type TimeSkipping,
} from '../harness/time-skipping';
import { bankEventSignal, dismissOrphanSignal, inboxQuery, type WebhookInboxInput } from './imports';

// The webhook inbox's reroute window (15 minutes of retries, backing off from 2 s to a minute), its
// orphans and their dismissal.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

/** A payrun whose owning workflow shows up `after` ms of workflow time past the first reroute (never: Infinity). */
function fakeRouting(after: number) {
  let first: number | undefined;
  const stubs: StubActivities = {
    rerouteBankEvent: async (evt) => {
      const now = await ts.env.currentTimeMs();
      first ??= now;
      if (now - first < after) throw ApplicationFailure.retryable('no running workflow owns it yet');
      return { delivered: [`payout-${evt.sessionId}`] };
    },
  };
  return stubs;
}

const sessionEvent = (sessionId: string, id = `evt-${randomUUID()}`) => ({
  id,
  type: 'ready_to_confirm' as const,
  sessionId,
  receivedAt: new Date().toISOString(),
});

async function withInbox(
  stubs: StubActivities,
  input: WebhookInboxInput,
  body: (handle: WorkflowHandle, calls: StubCall[]) => Promise<void>,
) {
  await withStubWorker(ts, stubs, async ({ taskQueue, calls }) => {
    const handle = await ts.client.workflow.start('webhookInboxWorkflow', {
      taskQueue,
      workflowId: `inbox-${randomUUID()}`,
      args: [input],
    });
    try {
      await body(handle, calls);
    } finally {
      await handle.terminate('the test is over'); // the inbox runs forever
    }
  });
}

const inboxOf = (handle: WorkflowHandle) => handle.query(inboxQuery);

test('the owner starts 3 minutes late: retried with backoff, then routed, never orphaned', async () => {
  await withInbox(fakeRouting(3 * MINUTE), {}, async (handle, calls) => {
    await handle.signal(bankEventSignal, sessionEvent('ses-late-owner'));
    await skipUntil(
      ts,
      async () => (await inboxOf(handle)).routed.count === 1,
      'the event routed',
      30 * SECOND, // few steps: a loaded machine stays well inside skipUntil's real-time minute
    );

    const inbox = await inboxOf(handle);
    expect(inbox.routed.last[0]).toMatchObject({
      sessionId: 'ses-late-owner',
      delivered: ['payout-ses-late-owner'],
    });
    expect(inbox.pending).toEqual([]);
    expect(inbox.orphaned).toEqual([]);
    // 2, 4, 8, 16, 32, then 60 s apart: about eight attempts in three minutes, not one a second.
    const attempts = callsOf(calls, 'rerouteBankEvent').length;
    expect(attempts).toBeGreaterThanOrEqual(7);
    expect(attempts).toBeLessThanOrEqual(10);
  });
});

test('no owner within 15 minutes: an orphan, kept until dismissed; a resent event and a malformed one change nothing', async () => {
  await withInbox(fakeRouting(Infinity), {}, async (handle) => {
    const event = sessionEvent('ses-nobody');
    await handle.signal(bankEventSignal, event);
    await ts.env.sleep(14 * MINUTE);
    expect((await inboxOf(handle)).pending.map((p) => p.id)).toEqual([event.id]);
    await skipUntil(ts, async () => (await inboxOf(handle)).orphaned.length === 1, 'the orphan', 10 * SECOND);

    const orphan = (await inboxOf(handle)).orphaned[0]!;
    expect(orphan.event.id).toBe(event.id);
    expect(orphan.reason).toBe('no running workflow took it within 900 s');
    await handle.signal(bankEventSignal, event);
    await handle.signal(bankEventSignal, { id: '', type: 'nonsense' } as never);
    await handle.signal(dismissOrphanSignal, { id: event.id, by: 'operator' });
    await skipUntil(ts, async () => (await inboxOf(handle)).dismissedCount === 1, 'the dismissal', SECOND);
    const inbox = await inboxOf(handle);
    expect(inbox.orphaned).toEqual([]);
    expect(inbox.pending).toEqual([]);
    expect(inbox.ignoredMalformed).toBe(1);
  });
});

test('an event signalled with the inbox’s start is rerouted once: one attempt at a time, one orphan', async () => {
  await withStubWorker(ts, fakeRouting(Infinity), async ({ taskQueue, calls }) => {
    const event = sessionEvent('ses-with-start');
    // Signal-with-start puts the event in the inbox's first task, before its run restarts what it carried.
    const handle = await ts.client.workflow.signalWithStart('webhookInboxWorkflow', {
      taskQueue,
      workflowId: `inbox-${randomUUID()}`,
      args: [{}],
      signal: bankEventSignal,
      signalArgs: [event],
    });
    try {
      await skipUntil(ts, async () => (await inboxOf(handle)).orphaned.length > 0, 'the orphan', MINUTE);
      const inbox = await inboxOf(handle);
      expect(inbox.orphaned.map((o) => o.event.id)).toEqual([event.id]);
      expect(inbox.pending).toEqual([]);
      // 2, 4, 8, 16, 32, then 60 s apart for 15 minutes: about 18 attempts of one activity, not two of each.
      expect(callsOf(calls, 'rerouteBankEvent').length).toBeLessThanOrEqual(20);
    } finally {
      await handle.terminate('the test is over');
    }
  });
});
