import { randomUUID } from 'node:crypto';
import { skipUntil, startTimeSkipping, withStubWorker, type TimeSkipping } from '../harness/time-skipping';
import { acknowledgeSignal, connectivityStatusQuery } from './imports';

// `payrun doctor`'s round trip: the acknowledge signal ends the wait, and a missing one ends it at the
// timeout (60 s of workflow time by default) with nobody named.

let ts: TimeSkipping;
beforeAll(async () => {
  ts = await startTimeSkipping();
});
afterAll(async () => {
  await ts?.teardown();
});

const stubs = {
  describeWorker: async () => ({
    hostname: 'time-skipping',
    pid: 1,
    nodeVersion: process.version,
    taskQueue: 'stub',
    payrunVersion: 'test',
  }),
};
type Result = { acknowledgedBy: string | null };

test('acknowledged while waiting: the first well-formed signal names who; a malformed one is only counted', async () => {
  await withStubWorker(ts, stubs, async ({ taskQueue }) => {
    const handle = await ts.client.workflow.start('connectivityCheckWorkflow', {
      taskQueue,
      workflowId: `doctor-${randomUUID()}`,
      args: [{ awaitAcknowledgement: true, acknowledgementTimeoutMs: 3_600_000 }],
    });
    await skipUntil(
      ts,
      async () => (await handle.query(connectivityStatusQuery)) === 'awaiting acknowledgement',
      'the check awaiting its acknowledgement',
      1_000,
    );
    await ts.env.sleep(30 * 60_000);
    await handle.signal(acknowledgeSignal, { by: 42 } as unknown as { by: string });
    await handle.signal(acknowledgeSignal, { by: 'operator' });
    await handle.signal(acknowledgeSignal, { by: 'someone later' });
    const result = (await handle.result()) as Result;

    expect(result.acknowledgedBy).toBe('operator');
    expect(await handle.query(connectivityStatusQuery)).toBe('done (ignored 1 malformed signals)');
  });
});

test('never acknowledged: the wait ends at its default minute of workflow time, nobody named', async () => {
  await withStubWorker(ts, stubs, async ({ taskQueue }) => {
    const handle = await ts.client.workflow.start('connectivityCheckWorkflow', {
      taskQueue,
      workflowId: `doctor-${randomUUID()}`,
      args: [{ awaitAcknowledgement: true }],
    });
    const result = (await handle.result()) as Result;
    const { startTime, closeTime } = await handle.describe();
    const waited = closeTime!.getTime() - startTime.getTime();

    expect(result.acknowledgedBy).toBeNull();
    expect(waited).toBeGreaterThanOrEqual(60_000);
    expect(waited).toBeLessThan(120_000);
  });
});
