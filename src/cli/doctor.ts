import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { withClient } from './connect';
import { acknowledgeSignal } from '../../workflows/connectivity-check/contract';
import { connectivityCheckWorkflow } from '../../workflows/connectivity-check/workflow';

/** Runs the connectivity-check workflow through a live worker and reports who answered. */
export async function runConnectivityCheck() {
  return withClient(async (client, taskQueue) => {
    const handle = await client.workflow.start(connectivityCheckWorkflow, {
      taskQueue,
      workflowId: `connectivity-check-${randomUUID()}`,
      args: [{ awaitAcknowledgement: true, acknowledgementTimeoutMs: 60_000 }],
    });
    await handle.signal(acknowledgeSignal, { by: 'payrun doctor' });
    return { workflowId: handle.workflowId, ...(await handle.result()) };
  });
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check that Temporal and a worker answer: runs the connectivity-check workflow end to end')
    .action(async () => {
      const r = await runConnectivityCheck();
      console.log(
        `ok: workflow ${r.workflowId} ran on worker ${r.worker.hostname} pid ${r.worker.pid} ` +
          `(payrun ${r.worker.payrunVersion}, node ${r.worker.nodeVersion}), acknowledged by ${r.acknowledgedBy}`,
      );
    });
}
