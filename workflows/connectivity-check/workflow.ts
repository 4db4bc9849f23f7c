import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type * as activities from '../../activities/diagnostics';
import { DIAGNOSTIC } from '../shared/activity-options';
import {
  acknowledgeSignal,
  connectivityStatusQuery,
  parseAcknowledgement,
  parseConnectivityInput,
  type ConnectivityCheckInput,
} from './contract';
import { invalidInput } from '../shared/parse';

const { describeWorker } = proxyActivities<typeof activities>(DIAGNOSTIC);

export type { ConnectivityCheckInput } from './contract';

export interface ConnectivityCheckResult {
  worker: activities.WorkerDescription;
  acknowledgedBy: string | null;
}

/**
 * Proves the whole chain an operator relies on: client → server → worker → activity → signal.
 * `payrun doctor` and `make demo` run it; it moves no money and calls no bank.
 */
export async function connectivityCheckWorkflow(
  raw: ConnectivityCheckInput,
): Promise<ConnectivityCheckResult> {
  const parsed = parseConnectivityInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  let status = 'describing worker';
  let ignored = 0;
  let acknowledgedBy: string | null = null;
  setHandler(connectivityStatusQuery, () =>
    ignored ? `${status} (ignored ${ignored} malformed signals)` : status,
  );
  setHandler(acknowledgeSignal, (ack) => {
    const r = parseAcknowledgement(ack);
    if (r.ok) acknowledgedBy ??= r.value.by;
    else ignored++;
  });
  const worker = await describeWorker();
  if (input.awaitAcknowledgement) {
    status = 'awaiting acknowledgement';
    await condition(() => acknowledgedBy !== null, input.acknowledgementTimeoutMs ?? 60_000);
  }
  status = 'done';
  return { worker, acknowledgedBy };
}
