// The worker bundles this file: every workflow type payrun runs is exported here.
export { connectivityCheckWorkflow } from './connectivity-check';
export { payoutWorkflow } from './payout';
export { taxpayerWorkflow } from './taxpayer';
export { webhookInboxWorkflow } from './webhook-inbox/workflow';
export { refundWorkflow } from './refund/workflow';
export { batchWorkflow } from './batch';
export { reconciliationDayWorkflow, reconciliationDueWorkflow } from './reconciliation';
export { recipientWorkflow } from './recipient-ledger/workflow';
export { resolveDifferenceWorkflow } from './reconciliation-resolve';
