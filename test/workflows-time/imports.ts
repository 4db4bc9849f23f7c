// Everything the time-skipping tests take from workflows/, in one place: workflows are started by their
// type name, so only contracts (ids, handler definitions, types) are needed, and a move of the workflow
// files changes only the paths below.
export type {
  BatchAuthorization,
  BatchStatement,
  PayoutAuthorization,
  PayoutStatement,
  PolicyView,
} from '../../workflows/contracts/approval';
export { bankEventSignal } from '../../workflows/contracts/bank-event';
export {
  approveBatchUpdate,
  batchProgressQuery,
  cancelBatchUpdate,
  pauseBatchUpdate,
  resumeBatchUpdate,
  type BatchChunkRow,
  type BatchRowOutcome,
  type BatchWorkflowInput,
  type PayoutLookup,
} from '../../workflows/contracts/batch';
export { acknowledgeSignal, connectivityStatusQuery } from '../../workflows/contracts/connectivity';
export { dismissOrphanSignal, inboxQuery, type WebhookInboxInput } from '../../workflows/contracts/inbox';
export {
  approvePayoutUpdate,
  cancelPayoutUpdate,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutOptions,
  type PayoutState,
  type PayoutStatus,
} from '../../workflows/contracts/payout';
export {
  recipientQuery,
  recipientTaskQueue,
  refreshRecipientUpdate,
  reserveIncomeUpdate,
  type PayoutProof,
  type ReserveRequest,
} from '../../workflows/contracts/recipient';
export { reconciliationWorkflowId } from '../../workflows/contracts/reconciliation';
export { refundStatusQuery, refundWorkflowId, type RefundStatus } from '../../workflows/contracts/refund';
export {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  taxpayerVerdictSignal,
  VERDICT_UNCONFIRMED,
  verdictRefusal,
  type TaxpayerVerdict,
} from '../../workflows/contracts/taxpayer';
/** The payout workflow's type only (its handles' result type); it is started by name. */
export type { payoutWorkflow } from '../../workflows/payout';
