import { setHandler } from '@temporalio/workflow';
import {
  acknowledgeSignal,
  connectivityStatusQuery,
  parseConnectivityInput,
  type ConnectivityCheckInput,
} from './contract';
import { ConnectivityRun, type ConnectivityCheckResult } from './run';
import { invalidInput } from '../shared/parse';

export type { ConnectivityCheckInput } from './contract';
export type { ConnectivityCheckResult } from './run';

/**
 * Proves the whole chain an operator relies on: client → server → worker → activity → signal.
 * `payrun doctor` and `make demo` run it; it moves no money and calls no bank.
 */
export async function connectivityCheckWorkflow(
  raw: ConnectivityCheckInput,
): Promise<ConnectivityCheckResult> {
  const parsed = parseConnectivityInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const run = new ConnectivityRun(parsed.value);
  setHandler(connectivityStatusQuery, () => run.status);
  setHandler(acknowledgeSignal, (ack) => run.acknowledged(ack));
  return run.run();
}
