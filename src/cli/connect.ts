import { Client, Connection } from '@temporalio/client';
import { loadTemporalConfig } from '../config';

/** Runs `fn` with a Temporal client from TEMPORAL_* configuration, closing the connection after. */
export async function withClient<T>(fn: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const t = loadTemporalConfig();
  const connection = await Connection.connect({ address: t.address });
  try {
    return await fn(new Client({ connection, namespace: t.namespace }), t.taskQueue);
  } finally {
    await connection.close();
  }
}

/** The operation failed: main() prints the message and exits 1. */
export class CliFailure extends Error {}
