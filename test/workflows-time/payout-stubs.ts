import { createPrivateKey } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { BeforeCreating } from '../../activities/payout-runs';
import { generateSigningKey, signerFromKey, signStatement } from '../../src/policy/keys';
import {
  type PayoutAuthorization,
  type PayoutStatement,
  type PolicyView,
  payoutStatusQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutOptions,
  type PayoutState,
  type PayoutStatus,
  VERDICT_UNCONFIRMED,
  verdictRefusal,
  type TaxpayerVerdict,
  type payoutWorkflow,
} from './imports';
import { skipUntil, type StubActivities, type TimeSkipping } from '../harness/time-skipping';
import type { FakeBank } from './fake-bank';

/** What the worker's look-up before the create answers: no earlier run, the given authorization and verdict. */
export interface LookupAnswer {
  authorization?: PayoutAuthorization;
  verdict?: TaxpayerVerdict;
  /** The taxpayer workflow's own verdict when the payout reads it later (default: `verdict`). */
  ownCheck?: TaxpayerVerdict;
  /** Runs inside the look-up, before it answers (a signal that arrives meanwhile). */
  meanwhile?: (workflowId: string) => Promise<void>;
}

/** The payout workflow's activities: the fake bank's, and the look-up that creates the session when clear. */
export function payoutStubs(bank: FakeBank, answer: LookupAnswer = {}): StubActivities {
  return {
    ...bank.activities(),
    beforeCreating: async (input) => {
      await answer.meanwhile?.(input.workflowId);
      const found: BeforeCreating = {
        earlier: [],
        authorization: answer.authorization ?? { kind: 'not_needed', because: 'a time-skipping test' },
        ...(answer.verdict ? { verdict: answer.verdict } : {}),
      };
      const create = input.createIfClear;
      if (!create) return found;
      if (create.request.selfEmployed && (!answer.verdict || verdictRefusal(answer.verdict))) return found;
      return { ...found, created: bank.create(create) };
    },
    // As the worker's create: a verdict a signal claimed is checked with the taxpayer workflow's own first.
    createPayoutSession: async (input) => {
      const own = answer.ownCheck ?? answer.verdict;
      if (input.confirmVerdict && (!own || verdictRefusal(own)))
        throw ApplicationFailure.nonRetryable(
          'the taxpayer check does not back the claim',
          VERDICT_UNCONFIRMED,
        );
      return bank.create(input);
    },
    taxpayerVerdict: async () => answer.ownCheck ?? answer.verdict,
  };
}

export const ALLOWING_VERDICT: TaxpayerVerdict = {
  isProfessionalIncomeTaxpayer: true,
  isLinked: true,
  checkedAt: '2026-01-01T00:00:00.000Z',
};

/** An approver of a policy made for one test, and the authorization that asks for their approval. */
export function approverPolicy(ts: TimeSkipping) {
  const { privateKeyPem, publicKey } = generateSigningKey();
  const policy: PolicyView = {
    version: 'time-skipping-test',
    people: [{ id: 'approver', roles: ['approver'], keys: [publicKey.slice('ed25519:'.length)] }],
    rules: {
      submittedNeedApproval: true,
      droppedNeedApproval: true,
      twoApproversAboveKopecks: null,
      handStartedApprovalAboveKopecks: 0,
      approvalExpiresAfterMs: 24 * 3_600_000,
    },
  };
  const signer = signerFromKey('approver', createPrivateKey(privateKeyPem));
  const authorization: PayoutAuthorization = { kind: 'own_approval', policy, because: 'a test asks for one' };
  /** The approver's signed approval of the payout's current run, for its amount. */
  const approvalOf = async (handle: WorkflowHandle<typeof payoutWorkflow>) => {
    const { runId } = await handle.describe();
    const status = await handle.query(payoutStatusQuery);
    // Signed at the server's time: skipped time runs ahead of this machine's clock.
    const now = new Date(await ts.env.currentTimeMs());
    return signStatement<PayoutStatement>(
      signer,
      { kind: 'payout', decision: 'approve', reference: status.reference, runId, amount: status.amount },
      now,
    );
  };
  return { authorization, approvalOf };
}

export function startPayout(
  ts: TimeSkipping,
  taskQueue: string,
  input: PayoutInput,
  more: Pick<WorkflowStartOptions, 'workflowTaskTimeout'> = {},
): Promise<WorkflowHandle<typeof payoutWorkflow>> {
  return ts.client.workflow.start<typeof payoutWorkflow>('payoutWorkflow', {
    taskQueue,
    workflowId: payoutWorkflowId(input.request.reference),
    args: [input],
    ...more,
  });
}

/** Polls after a minute of workflow time, like production's default: time skipping makes it free. */
export const OPTIONS: PayoutOptions = {};

/** The final status, whether the run completed (paid) or failed with a not-paid ending; the server skips time meanwhile. */
export async function finalStatus(handle: WorkflowHandle<typeof payoutWorkflow>): Promise<PayoutStatus> {
  try {
    return await handle.result();
  } catch (err) {
    const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.details?.[0]) return cause.details[0] as PayoutStatus;
    throw err;
  }
}

/** Skips workflow time in steps of `stepMs` until the payout's status query shows `state`. */
export async function untilState(
  ts: TimeSkipping,
  handle: WorkflowHandle<typeof payoutWorkflow>,
  state: PayoutState,
  stepMs = 10_000,
): Promise<PayoutStatus> {
  let last: PayoutStatus | undefined;
  const reached = async () => {
    last = await handle.query(payoutStatusQuery);
    return last.state === state;
  };
  try {
    await skipUntil(ts, reached, `payout ${handle.workflowId} in state ${state}`, stepMs);
  } catch (err) {
    throw new Error(`${(err as Error).message}; it is ${last?.state}: ${last?.notes.join('; ')}`);
  }
  return last!;
}
