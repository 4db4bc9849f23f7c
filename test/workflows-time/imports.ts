// Everything the time-skipping tests take from workflows/, in one place: workflows are started by their
// type name, so only contracts (ids, handler definitions, types) are needed, and a move of the workflow
// files changes only the paths below.
export type {
  BatchAuthorization,
  BatchStatement,
  PayoutAuthorization,
  PayoutStatement,
  PolicyView,
} from '../../workflows/shared/approval-contract';
export { bankEventSignal } from '../../workflows/shared/bank-event-contract';
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
} from '../../workflows/batch/contract';
export { acknowledgeSignal, connectivityStatusQuery } from '../../workflows/connectivity-check/contract';
export {
  dismissOrphanSignal,
  inboxQuery,
  type WebhookInboxInput,
} from '../../workflows/webhook-inbox/contract';
export {
  approvePayoutUpdate,
  cancelPayoutUpdate,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutOptions,
  type PayoutState,
  type PayoutStatus,
} from '../../workflows/payout/contract';
export {
  recipientQuery,
  recipientTaskQueue,
  refreshRecipientUpdate,
  reserveIncomeManyUpdate,
  reserveIncomeUpdate,
  type PayoutProof,
  type ReserveRequest,
} from '../../workflows/recipient-ledger/contract';
export { reconciliationWorkflowId } from '../../workflows/reconciliation/contract';
export { refundStatusQuery, refundWorkflowId, type RefundStatus } from '../../workflows/refund/contract';
export {
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  taxpayerVerdictSignal,
  VERDICT_UNCONFIRMED,
  verdictRefusal,
  type TaxpayerVerdict,
} from '../../workflows/taxpayer/contract';
/** The payout workflow's type only (its handles' result type); it is started by name. */
export type { payoutWorkflow } from '../../workflows/payout/workflow';
