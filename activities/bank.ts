import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { BankApiError, type BankClient, type PaymentSession } from '../src/bank';
import type { PayerConfig } from '../src/config';
import type { PayoutRequest } from '../src/domain';
import { VERDICT_UNCONFIRMED, verdictRefusal, type TaxpayerVerdict } from '../workflows/taxpayer/contract';
import { askTaxpayerVerdict, type TaxpayerAsk } from './taxpayer';
import { callBank, toActivityFailure } from './failures';
import { idempotencyKey } from './idempotency';
import { payoutCall } from './payout-request';

export interface BankActivityDeps {
  bank: BankClient;
  payer: PayerConfig;
  /** For signal-with-start of the per-tax-number workflow. */
  client: Client;
  taskQueue: string;
}

export { taxpayerWorkflowId } from '../src/temporal/person-ids';

/** A payout session to create: the workflow's id and first run id key it at the bank. */
export interface CreatePayoutInput {
  workflowId: string;
  runKey: string;
  request: PayoutRequest;
  batchId?: string;
  /** The payout waits for no confirmation_payout (said in the session's metadata for the ingress). */
  endsAtResult?: boolean;
  /**
   * The verdict a taxpayerVerdict signal claimed allows paying: believed only if the taxpayer workflow
   * itself holds a fresh verdict that allows it, read here before the create (no history event of its own).
   */
  confirmVerdict?: TaxpayerAsk;
}

export function createBankActivities({ bank, payer, client, taskQueue }: BankActivityDeps) {
  // One owner per retry: Temporal's retry policy retries activities, so the client tries each call once.
  const once = () => ({ signal: Context.current().cancellationSignal, maxRetries: 0 });
  return {
    /** The per-tax-number workflow's fresh verdict, or undefined after asking it for one (activities/taxpayer.ts). */
    async taxpayerVerdict(input: TaxpayerAsk): Promise<TaxpayerVerdict | undefined> {
      return askTaxpayerVerdict(client, taskQueue, input);
    },

    async npdCheck(input: { taxReference: string }): Promise<{ requestId: string }> {
      try {
        const res = await bank.npd.check({ tax_reference: input.taxReference }, once());
        return { requestId: res.request_id };
      } catch (err) {
        // The previous attempt reached the bank but its answer was lost: wait out the 30-second rule.
        if (err instanceof BankApiError && err.code === 'too_many_requests') {
          throw ApplicationFailure.create({
            message: err.description,
            type: err.code,
            nextRetryDelay: '31 seconds',
          });
        }
        return toActivityFailure(err, 'npd/check');
      }
    },

    async npdRequestStatus(input: { requestId: string }): Promise<{
      status: string;
      isProfessionalIncomeTaxpayer?: boolean;
      isLinked?: boolean;
      error?: string;
    }> {
      const res = await callBank('npd/request/status', () =>
        bank.npd.requestStatus({ request_id: input.requestId }, once()),
      );
      const error = (res as { error?: { code?: string } }).error?.code;
      return {
        status: res.status,
        isProfessionalIncomeTaxpayer: res.is_professional_income_taxpayer ?? undefined,
        isLinked: res.is_linked ?? undefined,
        ...(error ? { error } : {}),
      };
    },

    /**
     * Creates and starts the payout. The idempotency key is derived from the workflow run, so a
     * retried or replayed activity gets the bank's first answer back instead of a second payout.
     */
    async createPayoutSession(input: CreatePayoutInput): Promise<PaymentSession> {
      if (input.confirmVerdict) {
        const held = await askTaxpayerVerdict(client, taskQueue, input.confirmVerdict);
        if (!held || verdictRefusal(held))
          throw ApplicationFailure.nonRetryable(
            held
              ? 'the taxpayer check refuses the recipient; no session was created'
              : 'the taxpayer check has no verdict yet; no session was created',
            VERDICT_UNCONFIRMED,
          );
      }
      const { workflowId, batchId, endsAtResult } = input;
      const call = payoutCall(input.request, { workflowId, batchId, endsAtResult }, payer);
      const opts = { idempotencyKey: idempotencyKey('po', input.workflowId, input.runKey), ...once() };
      const res = await callBank('create payout', () =>
        call.method === 'initPayoutFiscalization'
          ? bank.sessions.initPayoutFiscalization(call.params, opts)
          : bank.sessions.initPayout(call.params, opts),
      );
      if (!res.session)
        throw ApplicationFailure.nonRetryable('bank answered ok without a session', 'no_session');
      return res.session;
    },

    async getSession(input: { sessionId: string }): Promise<PaymentSession> {
      const res = await callBank('session/status', () =>
        bank.sessions.status({ session_id: input.sessionId }, once()),
      );
      if (!res.session)
        throw ApplicationFailure.retryable('session/status answered without a session', 'no_session');
      return res.session;
    },

    async confirmSession(input: { sessionId: string; key: string }): Promise<void> {
      await callBank('session/confirm', () =>
        bank.sessions.confirm(
          { session_id: input.sessionId },
          { idempotencyKey: idempotencyKey('cf', input.key), ...once() },
        ),
      );
    },

    async cancelSession(input: { sessionId: string; key: string }): Promise<void> {
      await callBank('session/cancel', () =>
        bank.sessions.cancel(
          { session_id: input.sessionId },
          { idempotencyKey: idempotencyKey('cn', input.key), ...once() },
        ),
      );
    },

    async refundSession(input: {
      sessionId: string;
      amount?: number;
      workflowId: string;
      runKey: string;
      reference: string;
    }): Promise<PaymentSession> {
      const res = await callBank('session/refund', () =>
        bank.sessions.refund(
          {
            session_id: input.sessionId,
            ...(input.amount !== undefined
              ? { amount_details: { amount: input.amount, currency: 'rub' } }
              : {}),
            metadata: { payrun: { workflow_id: input.workflowId, reference: input.reference } },
          },
          { idempotencyKey: idempotencyKey('rf', input.workflowId, input.runKey), ...once() },
        ),
      );
      if (!res.session)
        throw ApplicationFailure.nonRetryable('bank answered ok without a session', 'no_session');
      return res.session;
    },
  };
}
