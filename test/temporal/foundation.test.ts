import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { acknowledgeSignal, connectivityStatusQuery } from '../../workflows/connectivity-check/contract';
import { connectivityCheckWorkflow } from '../../workflows/connectivity-check/workflow';
import { connectClient, startTestWorker, type TestWorker } from '../harness/temporal';
import { recordHistoryIfAsked } from '../harness/replay';
import { waitFor } from '../harness/wait';

describe('a real worker against the real dev server', () => {
  let client: Client;
  let closeClient: () => Promise<void>;
  let worker: TestWorker;

  beforeAll(async () => {
    ({ client, close: closeClient } = await connectClient());
    worker = await startTestWorker();
  });
  afterAll(async () => {
    await worker?.stop();
    await closeClient?.();
  });

  it('runs an activity, takes a signal and answers a query', async () => {
    const handle = await client.workflow.start(connectivityCheckWorkflow, {
      taskQueue: worker.taskQueue,
      workflowId: `connectivity-${randomUUID()}`,
      args: [{ awaitAcknowledgement: true, acknowledgementTimeoutMs: 60_000 }],
    });
    await waitFor(async () => (await handle.query(connectivityStatusQuery)) === 'awaiting acknowledgement');
    await handle.signal(acknowledgeSignal, { by: 'jest' });
    const result = await handle.result();

    expect(result.acknowledgedBy).toBe('jest');
    expect(result.worker.pid).toBe(process.pid);
    expect(result.worker.taskQueue).toBe(worker.taskQueue);
    expect(await handle.query(connectivityStatusQuery)).toBe('done');
    await recordHistoryIfAsked('connectivity-check-acknowledged', handle);
  });

  it('registers payrun search attributes on the server', async () => {
    const { connection } = client;
    const res = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(res.customAttributes ?? {})).toEqual(
      expect.arrayContaining([
        'PayrunSessionId',
        'PayrunPayoutRef',
        'PayrunBatchId',
        'PayrunState',
        'PayrunAmountKopecks',
      ]),
    );
  });
});
