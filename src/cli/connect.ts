import type { Client } from '@temporalio/client';
import { connectClient, loadTemporalSetup } from '../temporal';

/**
 * Runs `fn` with a Temporal client from TEMPORAL_* configuration and the payload keys (the CLI reads
 * and writes encrypted payloads like every other process), closing the connection after.
 */
export async function withClient<T>(fn: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const setup = loadTemporalSetup();
  const { client, close } = await connectClient(setup);
  try {
    return await fn(client, setup.config.taskQueue);
  } finally {
    await close();
  }
}

/** The operation failed: main() prints the message and exits 1. */
export class CliFailure extends Error {}
