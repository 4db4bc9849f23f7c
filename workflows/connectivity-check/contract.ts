import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { bool, HOUR, millis, object, operatorName, parseWith, type Result } from '../shared/parse';

// The connectivity-check workflow's contract (`payrun doctor`, `make demo`).

/** Connectivity check: an operator (or `make demo`) acknowledges that the round trip worked. */
export const acknowledgeSignal = defineSignal<[{ by: string }]>('acknowledge');

export const connectivityStatusQuery = defineQuery<string>('connectivityStatus');

const connectivityInput = object({
  /** Wait for an `acknowledge` signal before finishing (proves signals reach the workflow). */
  awaitAcknowledgement: bool(),
  acknowledgementTimeoutMs: millis(0, HOUR).optional(),
});
const acknowledgement = object({ by: operatorName() });

export type ConnectivityCheckInput = z.infer<typeof connectivityInput>;

export function parseConnectivityInput(raw: unknown): Result<ConnectivityCheckInput> {
  return parseWith(connectivityInput, raw);
}

export function parseAcknowledgement(raw: unknown): Result<z.infer<typeof acknowledgement>> {
  return parseWith(acknowledgement, raw);
}
