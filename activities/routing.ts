import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { routeToWorkflows } from '../src/routing/workflows';
import type { BankEventSignal } from '../workflows/shared/bank-event-contract';
import type { EarlierRefundRun } from '../workflows/refund/contract';
import { createRefundRunActivities } from './refund-runs';

export interface RoutingActivities {
  /** Delivers an inbox event to its workflows; throws (retryably) while none takes it. */
  rerouteBankEvent(evt: BankEventSignal): Promise<{ delivered: string[] }>;
  /** The refund workflow's earlier runs (activities/refund-runs.ts), served with these Temporal look-ups. */
  earlierRefundRuns(input: { workflowId: string; currentRunId: string }): Promise<EarlierRefundRun[]>;
}

/** Error type of "nobody took it yet": the inbox's retry policy does the waiting. */
export const NOT_DELIVERED_YET = 'BankEventNotDeliveredYet';

/** The inbox's reroute, with the ingress's own routing rule minus the inbox fallback. */
export function createRoutingActivities(client: Client): RoutingActivities {
  return {
    ...createRefundRunActivities(client),
    async rerouteBankEvent(evt) {
      // An inbox never delivers to itself: it already holds the event.
      const { info } = Context.current();
      const inbox = info.workflowExecution?.workflowId;
      const { delivered, skipped } = await routeToWorkflows(client, evt, {
        exclude: inbox,
        taskQueue: info.taskQueue,
      });
      if (delivered.length === 0) {
        throw ApplicationFailure.retryable(
          `no running workflow took bank event ${evt.id} (session ${evt.sessionId ?? '-'}; closed or missing: ${skipped.join(', ') || 'none'})`,
          NOT_DELIVERED_YET,
        );
      }
      return { delivered };
    },
  };
}
