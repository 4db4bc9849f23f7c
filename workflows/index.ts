// The worker bundles this file: every workflow type payrun runs is exported here.
export { connectivityCheckWorkflow } from './connectivity-check/workflow';
export { payoutWorkflow } from './payout/workflow';
export { taxpayerWorkflow } from './taxpayer/workflow';
export { webhookInboxWorkflow } from './webhook-inbox/workflow';
export { refundWorkflow } from './refund/workflow';
export { batchWorkflow } from './batch/workflow';
export {
  reconciliationDayWorkflow,
  reconciliationDueWorkflow,
  resolveDifferenceWorkflow,
} from './reconciliation/workflow';
export { recipientWorkflow } from './recipient-ledger/workflow';
export { eventOutboxWorkflow } from './event-outbox/workflow';
export { payoutReturnWorkflow } from './payout-return/workflow';
export { recurringPayrunWorkflow } from './recurring-payrun/workflow';
