// Everything the time-skipping tests take from workflows/, in one place: workflows are started by their
// type name, so only contracts (ids, handler definitions, types) are needed, and a move of the workflow
// files changes only the paths below.
export { acknowledgeSignal, connectivityStatusQuery } from '../../workflows/contracts/connectivity';
export { bankEventSignal, type BankEventSignal } from '../../workflows/contracts/bank-event';
export {
  refundStatusQuery,
  refundWorkflowId,
  type RefundInput,
  type RefundStatus,
} from '../../workflows/contracts/refund';
export { dismissOrphanSignal, inboxQuery, type WebhookInboxInput } from '../../workflows/contracts/inbox';
export {
  recipientQuery,
  recipientTaskQueue,
  refreshRecipientUpdate,
  reserveIncomeUpdate,
  type PayoutProof,
  type ReserveRequest,
} from '../../workflows/contracts/recipient';
export {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  type TaxpayerVerdict,
  type TaxpayerWorkflowInput,
} from '../../workflows/contracts/taxpayer';
export {
  reconciliationWorkflowId,
  type ReconcileDayInput,
  type ReconcileDueInput,
} from '../../workflows/contracts/reconciliation';
export {
  approveBatchUpdate,
  batchProgressQuery,
  cancelBatchUpdate,
  pauseBatchUpdate,
  resumeBatchUpdate,
  batchFundsChangedSignal,
  type BatchChunkRow,
  type BatchWorkflowInput,
} from '../../workflows/contracts/batch';
export { payoutStatusQuery, payoutWorkflowId } from '../../workflows/contracts/payout';
export type { BatchAuthorization, BatchStatement, PolicyView } from '../../workflows/contracts/approval';
