// The worker bundles this file: every workflow type payrun runs is exported here.
export { connectivityCheckWorkflow } from './connectivity-check/workflow';
export { payoutWorkflow } from './payout/workflow';
export { taxpayerWorkflow } from './taxpayer/workflow';
export { webhookInboxWorkflow } from './webhook-inbox';
export { refundWorkflow } from './refund';
export { batchWorkflow } from './batch/workflow';
export { reconciliationDayWorkflow, reconciliationDueWorkflow } from './reconciliation/workflow';
export { recipientWorkflow } from './recipient';
export { resolveDifferenceWorkflow } from './reconciliation/resolve';
