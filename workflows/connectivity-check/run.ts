import { condition } from '@temporalio/workflow';
import type { WorkerDescription } from '../../activities/diagnostics';
import { parseAcknowledgement, type ConnectivityCheckInput } from './contract';
import { describeWorker } from './activities';

export interface ConnectivityCheckResult {
  worker: WorkerDescription;
  acknowledgedBy: string | null;
}

/** The check's whole state: where it is, malformed signals it ignored, who acknowledged. */
export interface ConnectivityState {
  status: string;
  ignored: number;
  acknowledgedBy: string | null;
}

/** One check: the worker describes itself, then (if asked) an operator's acknowledgement is awaited. */
export class ConnectivityRun {
  readonly state: ConnectivityState = { status: 'describing worker', ignored: 0, acknowledgedBy: null };

  constructor(private readonly input: ConnectivityCheckInput) {}

  get status(): string {
    const { status, ignored } = this.state;
    return ignored ? `${status} (ignored ${ignored} malformed signals)` : status;
  }

  acknowledged(ack: unknown): void {
    const r = parseAcknowledgement(ack);
    if (r.ok) this.state.acknowledgedBy ??= r.value.by;
    else this.state.ignored++;
  }

  async run(): Promise<ConnectivityCheckResult> {
    const { state, input } = this;
    const worker = await describeWorker();
    if (input.awaitAcknowledgement) {
      state.status = 'awaiting acknowledgement';
      await condition(() => state.acknowledgedBy !== null, input.acknowledgementTimeoutMs ?? 60_000);
    }
    state.status = 'done';
    return { worker, acknowledgedBy: state.acknowledgedBy };
  }
}
