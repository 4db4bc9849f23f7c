import type { Client } from '@temporalio/client';
import type { EventEndpoint } from '../config/events';
import { nudgeDelivery } from './nudge';
import { reopen } from './outbox';

/**
 * `payrun events replay`: the chosen endpoints' events since `since` become pending again and their
 * delivery workflows are woken; each goes out under its own id (a receiver that dedups takes none twice).
 */
export async function replayEvents(
  client: Client,
  taskQueue: string,
  dataDir: string,
  endpoints: readonly EventEndpoint[],
  since: Date,
): Promise<{ endpoint: string; reopened: number }[]> {
  const done = endpoints.map((e) => ({
    endpoint: e.name,
    reopened: reopen(dataDir, e.name, since.toISOString()),
  }));
  await nudgeDelivery(client, taskQueue, endpoints);
  return done;
}
