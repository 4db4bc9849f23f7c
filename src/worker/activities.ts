import type { KeyObject } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { createBankActivities } from '../../activities/bank';
import { createBatchActivities } from '../../activities/batch';
import { createPayoutReturnActivities } from '../../activities/payout-return';
import { createPayoutRunActivities } from '../../activities/payout-runs';
import { createRecipientActivities } from '../../activities/recipient';
import { createReconciliationActivities } from '../../activities/reconciliation';
import { createRoutingActivities } from '../../activities/routing';
import { createScheduledActivities } from '../../activities/scheduled';
import { createWebhookActivities } from '../../activities/webhooks';
import {
  createEventActivities,
  eventEmitter,
  returnedEvent,
  withoutEventSource,
  type EventDeps,
} from '../../activities/events';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { BankClient } from '../bank';
import { REPORT_FAILED } from '../batch/services/finish';
import type { PayerConfig } from '../config';
import type { WorkerMetrics } from '../metrics';
import type { Policy } from '../policy/file';
import { instrumentBankClient } from './bank-metrics';

export interface ActivityDeps {
  bank: BankClient;
  payer: PayerConfig;
  client: Client;
  taskQueue: string;
  /** The bank's webhook key: payouts believe signed webhooks without reading session/status. */
  bankPublicKey?: KeyObject;
  /** Counts bank calls and batch rows (src/metrics); absent, nothing is counted. */
  metrics?: WorkerMetrics;
  /** Who may pay (PAYRUN_POLICY_FILE): batches and payouts ask it before any money moves. */
  policy: { current(): Policy };
  /** The batch store's folder; PAYRUN_DATA_DIR at call time when absent. */
  dataDir?: string;
  /** Signed status events (PAYRUN_EVENT_ENDPOINTS, docs/events.md); absent or none, nothing is written. */
  events?: Pick<EventDeps, 'endpoints' | 'delivery'>;
}

/** Every activity a payrun worker serves, built from the clients it shares. */
export function buildActivities({ metrics, ...deps }: ActivityDeps) {
  const counted = metrics ? { ...deps, bank: instrumentBankClient(deps.bank, metrics) } : deps;
  const batch = createBatchActivities(counted);
  const bank = createBankActivities(counted);
  // Events ride on activities that already record what happened: no activity, no event on a payout's path.
  const ev = deps.events?.endpoints.length
    ? {
        ...deps.events,
        client: deps.client,
        taskQueue: deps.taskQueue,
        dataDir: deps.dataDir,
        counters: metrics?.events,
      }
    : undefined;
  const emit = ev && eventEmitter(ev);
  return {
    ...bank,
    ...createRoutingActivities(counted.client),
    ...batch,
    ...createPayoutRunActivities({ ...counted, createPayoutSession: bank.createPayoutSession }),
    ...createWebhookActivities({ ...counted, confirmSession: bank.confirmSession }),
    ...createRecipientActivities(counted),
    ...createReconciliationActivities(counted),
    ...createEventActivities(ev ?? { endpoints: [], client: deps.client, taskQueue: deps.taskQueue }),
    async openBatch(input: Parameters<typeof batch.openBatch>[0]) {
      const view = await batch.openBatch(input);
      await emit?.submitted(input.batchId);
      return view;
    },
    async recordBatchDecision(input: Parameters<typeof batch.recordBatchDecision>[0]) {
      const outcome = await batch.recordBatchDecision(input);
      const s = input.signed.statement as { decision?: string; person?: string; reason?: string };
      if (outcome.accepted) await emit?.decided(input.batchId, s.decision ?? '', s.person ?? '', s.reason);
      return outcome;
    },
    ...createScheduledActivities(counted),
    ...createPayoutReturnActivities({
      ...counted,
      ...(metrics ? { metrics } : {}),
      ...(emit ? { onReturned: ({ status }) => emit.returned(returnedEvent(status, emit.withInn)) } : {}),
    }),
    /** A report that cannot be written fails its batch (not retried): counted, for PayrunBatchReportFailed. */
    async finishBatch(input: Parameters<typeof batch.finishBatch>[0]) {
      try {
        const final = await batch.finishBatch(input);
        await emit?.finished(input.batchId, input.cancelled);
        return final;
      } catch (err) {
        if (err instanceof ApplicationFailure && err.type === REPORT_FAILED) metrics?.batchReportFailed();
        throw err;
      }
    },
    /**
     * Every row outcome of a batch passes through here once it is final; counted after the store has
     * it, once per recording: a retry after a lost completion (same run, same activity id) on this
     * worker counts nothing more.
     */
    async recordBatchResults(input: Parameters<typeof batch.recordBatchResults>[0]): Promise<void> {
      // Events first: once the outcome is stored, a retry of this activity would still write them once.
      await emit?.rows(input.batchId, input.outcomes);
      await batch.recordBatchResults({ ...input, outcomes: withoutEventSource(input.outcomes) });
      const { workflowExecution, activityId } = Context.current().info;
      const recording = workflowExecution && `${workflowExecution.runId}/${activityId}`;
      metrics?.batchRows(
        input.outcomes.map((o) => o.state),
        recording,
      );
    },
  };
}
