import type { Client } from '@temporalio/client';
import type { PaymentSession } from '../src/bank';
import { payoutAuthorization } from '../src/batch/services/authorize';
import { loadBatchPaths } from '../src/batch/services/config';
import { earlierPayoutRuns } from '../src/batch/services/lookup';
import type { PayoutRequest } from '../src/domain';
import type { Policy } from '../src/policy/file';
import type { PayoutAuthorization } from '../workflows/shared/approval-contract';
import type { ReserveAnswer } from '../workflows/recipient-ledger/contract';
import { limitReason, unprovenReason } from './limit-words';
import { reserveIncome } from './recipient';
import type { EarlierPayoutRun } from '../workflows/payout/contract';
import { verdictRefusal, type TaxpayerVerdict } from '../workflows/taxpayer/contract';
import type { CreatePayoutInput } from './bank';
import { askTaxpayerVerdict, type TaxpayerAsk } from './taxpayer';

export interface BeforeCreating {
  earlier: EarlierPayoutRun[];
  verdict?: TaxpayerVerdict;
  /** The session, when the payout asked for it and nothing above stood in its way. */
  created?: PaymentSession;
  /** Who allowed this payout: its approved batch, its own approval to come, or a refusal (no session). */
  authorization?: PayoutAuthorization;
  /** Its amount reserved in the recipient's yearly ledger, or the limit it would pass (no session then). */
  reservation?: ReserveAnswer & { reason?: string };
}

/** What the payout workflow asks the Temporal server before it creates a bank session. */
/** How a refused reservation reads in the report: the limit, its amount and what is left. */
export function createPayoutRunActivities(deps: {
  client: Client;
  taskQueue: string;
  createPayoutSession: (input: CreatePayoutInput) => Promise<PaymentSession>;
  policy: { current(): Policy };
  /** Defaults to PAYRUN_DATA_DIR (read at call time). */
  dataDir?: string;
}) {
  /**
   * Before the session exists, the amount is reserved in the recipient's ledger when a limit applies to
   * the row (a self-employed row's yearly cap, or a per-payout or monthly limit for this person).
   */
  const reserve = async (workflowId: string, runId: string, request: PayoutRequest) => {
    // No limit for this row, nothing to reserve. The ledger takes the limits from this same policy itself.
    if (!deps.policy.current().limitsFor(request.recipient.taxReference, request.selfEmployed))
      return undefined;
    const answer = await reserveIncome(deps.client, deps.taskQueue, request.recipient.taxReference, {
      reference: request.reference,
      workflowId,
      runId,
      amount: request.amount,
      selfEmployed: request.selfEmployed,
    });
    if (answer.ok) return answer;
    // The ledger could not prove this run asked (it always should): paid nothing, as for a limit.
    if ('unproven' in answer) return { ...answer, reason: unprovenReason(answer) };
    return { ...answer, reason: limitReason(request.amount, answer) };
  };
  return {
    /**
     * Both things a payout must know before it creates a session, in one local activity (one marker in
     * history): every other run of its workflow id and what each did with the money (at most once
     * whoever starts it), and, for a self-employed recipient, a fresh taxpayer verdict or a request for one.
     * With `createIfClear`, when there is no earlier run and no verdict still to wait for or that refuses
     * the recipient, it also creates the session — the usual case, one marker and one workflow
     * activation fewer. Anything else comes back without `created`, and the workflow goes on as it
     * did before this existed: settle earlier runs, wait for the verdict, then createPayoutSession.
     */
    async beforeCreating(input: {
      workflowId: string;
      currentRunId: string;
      taxpayer?: TaxpayerAsk;
      createIfClear?: CreatePayoutInput;
      /** Absent only for a run that pays nothing (reconcile). */
      authorize?: {
        batchId?: string;
        request: PayoutRequest;
        requested?: boolean;
        startedBy?: string | null;
      };
    }): Promise<BeforeCreating> {
      const authorization = input.authorize
        ? await payoutAuthorization(
            deps.dataDir ?? loadBatchPaths().dataDir,
            deps.policy.current(),
            input.authorize,
            Date.now(),
            { client: deps.client, taskQueue: deps.taskQueue },
          )
        : undefined;
      const [earlier, verdict, reservation] = await Promise.all([
        earlierPayoutRuns(deps.client, input.workflowId, input.currentRunId),
        input.taxpayer ? askTaxpayerVerdict(deps.client, deps.taskQueue, input.taxpayer) : undefined,
        input.authorize && authorization?.kind !== 'refused'
          ? reserve(input.workflowId, input.currentRunId, input.authorize.request)
          : undefined,
      ]);
      const found = {
        earlier,
        ...(verdict ? { verdict } : {}),
        ...(authorization ? { authorization } : {}),
        ...(reservation ? { reservation } : {}),
      };
      const create = input.createIfClear;
      if (!create || earlier.length > 0 || authorization?.kind === 'refused' || reservation?.ok === false)
        return found;
      if (create.request.selfEmployed && (!verdict || verdictRefusal(verdict))) return found;
      return { ...found, created: await deps.createPayoutSession(create) };
    },
  };
}
