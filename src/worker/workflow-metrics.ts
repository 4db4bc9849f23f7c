/**
 * Runs inside the workflow sandbox (bundled beside workflows/, see BUNDLE_OPTIONS): how each payout
 * workflow ended leaves the sandbox through a sink, so the worker can count it. Sinks record nothing
 * in history and are not called on replay, so workflow code and recorded histories stay as they are.
 */
import {
  ApplicationFailure,
  proxySinks,
  workflowInfo,
  type Sinks,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { ALREADY_PAID_TYPE, readPayoutEnding } from '../../workflows/payout/ending';

export interface PayrunMetricsSinks extends Sinks {
  payrunMetrics: {
    payoutFinished(state: string): void;
  };
}

const sinks = proxySinks<PayrunMetricsSinks>();

/** Replay counts nothing; skipped here too, since a replay-only worker registers no sinks and would log each call. */
function payoutFinished(state: string): void {
  if (!workflowInfo().unsafe.isReplaying) sinks.payrunMetrics.payoutFinished(state);
}

/**
 * A payout completes only when paid; every other ending is an ApplicationFailure carrying its status
 * (workflows/payout/ending.ts). A refused duplicate run carries the earlier run's status, so it is
 * counted by its own name. Continue-as-new and failures that are not a payout's ending count nothing.
 */
function endingState(err: unknown): string | undefined {
  if (!(err instanceof ApplicationFailure)) return undefined;
  const ending = readPayoutEnding(err);
  if (!ending) return undefined;
  if (ending.kind === 'paid') return err.type === ALREADY_PAID_TYPE ? 'already_paid' : 'reference_conflict';
  return ending.status.state;
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        if (workflowInfo().workflowType !== 'payoutWorkflow') return next(input);
        let result: unknown;
        try {
          result = await next(input);
        } catch (err) {
          const state = endingState(err);
          if (state) payoutFinished(state);
          throw err;
        }
        const state = (result as { state?: unknown } | undefined)?.state;
        if (typeof state === 'string') payoutFinished(state);
        return result;
      },
    },
  ],
});
