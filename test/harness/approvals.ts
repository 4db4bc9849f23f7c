import type { WorkflowHandle } from '@temporalio/client';
import { subjectOf } from '../../src/batch/services/authorize';
import { batchStoreFor } from '../../src/batch/store/open';
import { signStatement } from '../../src/policy/keys';
import type {
  BatchStatement,
  PayoutStatement,
  SignedStatement,
} from '../../workflows/shared/approval-contract';
import { payoutStatusQuery } from '../../workflows/payout/contract';
import type { Stack } from './stack';

/** A test person's signed approve (or reject) of a batch, about the batch's file in the store the run uses. */
export async function batchDecision(
  stack: Stack,
  dataDir: string,
  batchId: string,
  person: string,
  decision: 'approve' | 'reject' = 'approve',
  extra: Partial<Omit<BatchStatement, 'kind' | 'decision'>> = {},
): Promise<SignedStatement<BatchStatement>> {
  return signStatement<BatchStatement>(stack.signer(person), {
    kind: 'batch',
    decision,
    ...subjectOf(await batchStoreFor(dataDir).readMeta(batchId)),
    ...extra,
  });
}

/** A test person's signed approval of the payout's current run, for its amount. */
export async function payoutApproval(
  stack: Stack,
  handle: WorkflowHandle,
  person: string,
): Promise<SignedStatement<PayoutStatement>> {
  const { runId } = await handle.describe();
  const status = await handle.query(payoutStatusQuery);
  return signStatement<PayoutStatement>(stack.signer(person), {
    kind: 'payout',
    decision: 'approve',
    reference: status.reference,
    runId,
    amount: status.amount,
  });
}
