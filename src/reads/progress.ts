/**
 * A batch's progress as its workflow answers it: what the console's pages and the read API show. A batch
 * whose workers are gone must not hold a page, so answeredProgress waits a bounded time.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { batchProgressQuery, type BatchProgress } from '../../workflows/batch/contract';

/** How long the list waits for one batch's answer: a batch whose worker is gone must not hold the page. */
export const LIST_QUERY_PATIENCE_MS = 5_000;

export async function batchProgress(client: Client, batchId: string): Promise<BatchProgress | undefined> {
  try {
    return await client.workflow.getHandle(batchId).query(batchProgressQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * A batch's progress if it answers within LIST_QUERY_PATIENCE_MS, else undefined (shown as unknown). A batch
 * whose workers are gone held the batch page and its progress poll for about 30 s before.
 */
export async function answeredProgress(client: Client, batchId: string): Promise<BatchProgress | undefined> {
  try {
    return await client.withDeadline(Date.now() + LIST_QUERY_PATIENCE_MS, () =>
      batchProgress(client, batchId),
    );
  } catch {
    return undefined;
  }
}
