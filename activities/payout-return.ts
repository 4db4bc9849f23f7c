import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { sessionOf, verifyWebhook, type BankClient } from '../src/bank';
import type { Refund } from '../src/bank/types/session';
import { loadDataDir } from '../src/config';
import { lookupPayout } from '../src/batch/services/lookup';
import { finishBatch } from '../src/batch/services/finish';
import { batchStoreFor } from '../src/batch/store/open';
import type { WorkerMetrics } from '../src/metrics';
import { keepPreviousReport } from '../src/returns/report';
import { markToAnnul } from '../src/returns/receipts';
import { provenReturnOf } from '../src/returns/read';
import { moscowDay } from '../src/reconcile/days';
import { sessionOwnersQuery } from '../src/routing/targets';
import { recipientLedgerId } from '../src/temporal/person-ids';
import { takeBackIncomeUpdate } from '../workflows/recipient-ledger/contract';
import { PAID_STATES, payoutStatusQuery, type PayoutStatus } from '../workflows/payout/contract';
import type {
  ProvenReturn,
  ReturnedPayout,
  ReturnEvidence,
  VerifiedEvidence,
} from '../workflows/payout-return/contract';
import { redactText } from '../src/logger';
import { callBank } from './failures';

export interface PayoutReturnActivityDeps {
  bank: BankClient;
  client: Client;
  taskQueue: string;
  bankPublicKey?: KeyObject;
  metrics?: WorkerMetrics;
  dataDir?: string;
  /** Told once the row is marked (the worker hands the payout.returned event to the outbox); safe to repeat. */
  onReturned?: (returned: { status: PayoutStatus; proven: ProvenReturn }) => Promise<void>;
}

const refuse = (why: string): VerifiedEvidence => ({ ok: false, why });
/** A statement purpose is the bank's free text: enough of it to recognise, not a page of it. */
const PURPOSE_KEPT = 200;

/**
 * A return's steps (workflows/payout-return/). The evidence is checked as the payout checks a webhook
 * (the bank's key) or read again from the bank (its statement, over the signed client); every write
 * after it is safe to repeat: an activity retried after a lost completion changes nothing twice.
 */
export function createPayoutReturnActivities(deps: PayoutReturnActivityDeps) {
  const dataDir = () => deps.dataDir ?? loadDataDir();
  return {
    async verifyReturnEvidence(input: {
      sessionId: string;
      evidence: ReturnEvidence;
    }): Promise<VerifiedEvidence> {
      const { sessionId, evidence: e } = input;
      if (e.source === 'webhook') {
        if (!deps.bankPublicKey) return refuse('this worker has no bank public key (BANK_PUBLIC_KEY_*)');
        const verified = verifyWebhook(
          Buffer.from(e.signed.body, 'base64'),
          e.signed.signature,
          deps.bankPublicKey,
        );
        if (!verified.ok) return refuse(`not the bank's webhook (${verified.reason})`);
        if (verified.event.type !== 'payment_refunded')
          return refuse(`a ${verified.event.type} webhook is not a return`);
        const session = sessionOf(verified.event);
        if (session?.id !== sessionId) return refuse(`a webhook about another session ${session?.id}`);
        // A payout's own refunds: a payment session's refund is no return of a payout.
        const refund = session.payments
          ?.flatMap((p) => (p as { refunds?: Refund[] }).refunds ?? [])
          .find((r) => r.status === 'accepted');
        if (!refund) return refuse('the webhook shows no accepted refund of the payout');
        const amount = refund.amount_details?.amount;
        if (amount === undefined) return refuse(`refund ${refund.id} states no amount`);
        const at = Date.parse(refund.finished_at ?? e.receivedAt);
        return {
          ok: true,
          proven: {
            source: 'webhook',
            bankWords: `payment_refunded: refund ${refund.id} ${refund.status}`,
            bankDate: moscowDay(Number.isNaN(at) ? Date.now() : at),
            evidenceId: e.eventId,
            amountKopecks: amount,
          },
        };
      }
      const res = await callBank('report/account_statement', () =>
        deps.bank.reports.accountStatement(
          { account_number: e.account, date_from: e.day, date_to: e.day },
          { signal: Context.current().cancellationSignal, maxRetries: 0 },
        ),
      );
      const line = res.method.account_statement.transactions.find((t) => t.bank_system_id === e.bankSystemId);
      if (!line) return refuse(`no line ${e.bankSystemId} on the statement of ${e.account} for ${e.day}`);
      if (line.type !== 'credit') return refuse(`line ${e.bankSystemId} is not a credit`);
      if (line.session_id !== sessionId) return refuse(`line ${e.bankSystemId} is of another session`);
      return {
        ok: true,
        proven: {
          source: 'statement',
          // The bank's free text goes into the report and the run's status: numbers in it are masked.
          bankWords: redactText(line.purpose).slice(0, PURPOSE_KEPT),
          bankDate: line.payment_date,
          evidenceId: e.bankSystemId,
          amountKopecks: line.amount,
        },
      };
    },

    /** The paid payout of the session, from its own record; a payout still running makes the return wait. */
    async findReturnedPayout({ sessionId }: { sessionId: string }): Promise<ReturnedPayout> {
      const { status, workflowId } = await paidPayoutOf(deps.client, deps.taskQueue, sessionId);
      const payout: ReturnedPayout = {
        reference: status.reference,
        payoutWorkflowId: workflowId,
        amount: status.amount,
        selfEmployed: status.taxpayer?.isProfessionalIncomeTaxpayer === true || !!status.bank.receiptId,
        ...(status.batchId ? { batchId: status.batchId } : {}),
        ...(status.bank.receiptId ? { receiptId: status.bank.receiptId } : {}),
      };
      if (!status.batchId) return payout;
      const store = batchStoreFor(dataDir());
      if (!(await store.exists(status.batchId))) return payout;
      for await (const { outcome } of store.outcomes(status.batchId))
        if (outcome.reference === status.reference) payout.row = outcome.row;
      // The batch records the row when the payout ends: marked before that, its own record would win.
      if (payout.row === undefined)
        throw new Error(`batch ${status.batchId} has not recorded ${status.reference} yet`);
      return payout;
    },

    /**
     * The row's outcome becomes `returned` with the bank's words and date (a later outcome wins), and a
     * finished batch's report and summary are written again whole, the previous ones kept beside them.
     * Returns the report's path when it was rewritten.
     */
    async markPayoutReturned(input: {
      sessionId: string;
      payout: ReturnedPayout;
      proven: ProvenReturn;
    }): Promise<string | undefined> {
      const { payout, proven, sessionId } = input;
      if (deps.onReturned)
        await deps.onReturned({
          status: (await paidPayoutOf(deps.client, deps.taskQueue, sessionId)).status,
          proven,
        });
      if (!payout.batchId || payout.row === undefined) return undefined;
      const store = batchStoreFor(dataDir());
      let last;
      for await (const { outcome } of store.outcomes(payout.batchId))
        if (outcome.row === payout.row) last = outcome;
      if (!last) throw new Error(`batch ${payout.batchId} has no outcome of row ${payout.row}`);
      if (last.state !== 'returned') {
        await store.appendOutcomes(payout.batchId, [
          {
            ...last,
            state: 'returned',
            sessionId,
            errorCode: 'returned',
            reason: `${proven.bankWords} (${proven.bankDate})`,
          },
        ]);
        deps.metrics?.payoutReturned();
      }
      const final = await store.readFinal(payout.batchId);
      if (!final) return undefined; // the batch still runs: its report will read the returned outcome
      if (store.sharesFolders && existsSync(final.reportPath)) keepPreviousReport(final, sessionId);
      const again = await finishBatch(dataDir(), payout.batchId, { cancelled: false });
      return again.reportPath;
    },

    /**
     * Where the bank's call to annul the receipt will go: the spec shows no annul method, so the receipt
     * is put on payrun's list to annul (`payrun receipts to-annul`) with the tax service's reason.
     */
    async markReceiptToAnnul(input: {
      sessionId: string;
      payout: ReturnedPayout;
      proven: ProvenReturn;
    }): Promise<'to_annul'> {
      markToAnnul(dataDir(), {
        sessionId: input.sessionId,
        reference: input.payout.reference,
        amount: input.payout.amount,
        ...(input.payout.receiptId ? { receiptId: input.payout.receiptId } : {}),
        returnedOn: input.proven.bankDate,
      });
      return 'to_annul';
    },

    /** The recipient's ledger takes the payout's income back (it proves the return itself). */
    async takeBackIncome(input: {
      sessionId: string;
      reference: string;
    }): Promise<'taken_back' | 'already' | 'no_ledger'> {
      const { status } = await paidPayoutOf(deps.client, deps.taskQueue, input.sessionId);
      const id = recipientLedgerId(deps.taskQueue, status.payee.taxReference);
      try {
        const answer = await deps.client.workflow
          .getHandle(id)
          .executeUpdate(takeBackIncomeUpdate, { args: [input] });
        if (!answer.ok) throw new Error(`the ledger refused the take-back: ${answer.why}`);
        return answer.already ? 'already' : 'taken_back';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return 'no_ledger';
        throw err;
      }
    },

    /** The ledger's proof of a take-back: a return workflow of this session, past the bank's check, of this payout. */
    async proveReturn(input: {
      sessionId: string;
      reference: string;
    }): Promise<{ ok: boolean; why?: string }> {
      const proven = await provenReturnOf(deps.client, deps.taskQueue, input.sessionId);
      if (!proven.ok) return proven;
      if (proven.status.payout && proven.status.payout.reference !== input.reference)
        return { ok: false, why: `the return of ${input.sessionId} is of another payout` };
      const { status } = await paidPayoutOf(deps.client, deps.taskQueue, input.sessionId);
      if (status.reference !== input.reference)
        return { ok: false, why: `session ${input.sessionId} is not the payout ${input.reference}'s` };
      return { ok: true };
    },
  };
}

/** The payout workflow that paid a session (visibility's PayrunSessionId), as its own record says. */
async function paidPayoutOf(
  client: Client,
  taskQueue: string,
  sessionId: string,
): Promise<{ status: PayoutStatus; workflowId: string }> {
  const query = `WorkflowType = "payoutWorkflow" AND ${sessionOwnersQuery(sessionId, taskQueue)}`;
  let listed = false;
  for await (const wf of client.workflow.list({ query })) {
    listed = true;
    const lookup = await lookupPayout(client, wf.workflowId);
    if (lookup.kind === 'running') {
      const now = await client.workflow.getHandle(wf.workflowId).query(payoutStatusQuery);
      if (now.bank.sessionId === sessionId)
        throw new Error(
          `payout ${wf.workflowId} still runs (${now.state}): the return waits for it to close`,
        );
    }
    if (
      lookup.kind === 'paid' &&
      lookup.status.bank.sessionId === sessionId &&
      PAID_STATES.includes(lookup.status.state)
    )
      return { status: lookup.status, workflowId: wf.workflowId };
  }
  if (!listed)
    throw ApplicationFailure.nonRetryable(
      `no payout of payrun has session ${sessionId}`,
      'payout_return_no_payout',
    );
  throw new Error(`no paid payout of session ${sessionId} (yet) in visibility`);
}
