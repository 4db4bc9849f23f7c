/**
 * The console's batch page and its progress poll ask a batch with a deadline: a batch whose workers are gone
 * (a shared store holds batches of other task queues) is shown as unknown within the list's patience, not
 * after the query's own 30 s or more.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { answeredProgress, LIST_QUERY_PATIENCE_MS } from '../../src/console/data';
import { connectClient } from '../harness/temporal';

describe('a batch with no worker on its task queue', () => {
  let client: Client;
  let closeClient: () => Promise<void>;

  beforeAll(async () => {
    ({ client, close: closeClient } = await connectClient());
  });
  afterAll(async () => {
    await closeClient?.();
  });

  it('is answered as unknown within the patience, and a missing batch as unknown at once', async () => {
    const handle = await client.workflow.start('batchWorkflow', {
      taskQueue: `nobody-polls-${randomUUID()}`,
      workflowId: `batch-orphan-${randomUUID()}`,
      args: [],
    });
    try {
      const started = Date.now();
      expect(await answeredProgress(client, handle.workflowId)).toBeUndefined();
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(LIST_QUERY_PATIENCE_MS - 100);
      // Without the deadline the query waits for a poller well past 20 s; with it, the patience plus the
      // client's own scheduling.
      expect(waited).toBeLessThan(20_000);
      expect(await answeredProgress(client, `batch-none-${randomUUID()}`)).toBeUndefined();
    } finally {
      await handle.terminate('test done');
    }
  });
});
