import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentSession } from '../src/bank/types/session';
import { laterPhase, readPayoutSession, receiptOf, type SessionPhase } from './bank-session';
import type { BankEventSignal, PayoutFailure, PayoutInput, PayoutState, PayoutStatus } from './definitions';
import { AMOUNT_KOPECKS, BATCH_ID, PAYOUT_REF, SESSION_ID, STATE } from './search-attributes';
import { iso } from './time';

/**
 * Everything a payout workflow knows, in the one shape its `status` query and result give:
 * the state, the bank's ids, every timestamp, and what the bank's events said.
 */
export class PayoutTracker {
  readonly status: PayoutStatus;
  phase: SessionPhase = 'processing';
  readyToConfirmSignalled = false;
  credited?: { event: string; eventDate: string };
  returnedAt?: string;
  private readonly seenEvents = new Set<string>();

  constructor(input: PayoutInput) {
    const { request } = input;
    this.status = {
      reference: request.reference,
      state: input.request.selfEmployed ? 'checking_taxpayer' : 'creating_session',
      amount: request.amount,
      currency: request.currency,
      ...(input.batchId ? { batchId: input.batchId } : {}),
      bank: {},
      approval: { required: input.options?.requireApproval === true },
      timestamps: { started: iso() },
      notes: [],
    };
    const attrs: SearchAttributeUpdatePair[] = [
      { key: PAYOUT_REF, value: request.reference },
      { key: AMOUNT_KOPECKS, value: request.amount },
      { key: STATE, value: this.status.state },
    ];
    if (input.batchId) attrs.push({ key: BATCH_ID, value: input.batchId });
    upsertSearchAttributes(attrs);
  }

  setState(state: PayoutState, timestampKey?: string): void {
    this.status.state = state;
    if (timestampKey) this.status.timestamps[timestampKey] = iso();
    upsertSearchAttributes([{ key: STATE, value: state }]);
  }

  fail(state: PayoutState, failure: PayoutFailure): PayoutStatus {
    this.status.failure = failure;
    this.setState(state, 'finished');
    return this.status;
  }

  note(text: string): void {
    this.status.notes.push(`${iso()} ${text}`);
    if (this.status.notes.length > 50) this.status.notes.splice(0, this.status.notes.length - 50);
  }

  get sessionId(): string | undefined {
    return this.status.bank.sessionId;
  }

  /** Reads a session from any source (create answer, webhook, poll); phases only move forward. */
  applySession(session: PaymentSession, source: string): void {
    if (!this.status.bank.sessionId) {
      this.status.bank.sessionId = session.id;
      upsertSearchAttributes([{ key: SESSION_ID, value: session.id }]);
    } else if (session.id !== this.status.bank.sessionId) {
      this.note(`ignored ${source} for another session ${session.id}`);
      return;
    }
    const reading = readPayoutSession(session);
    const payout = reading.payout;
    if (payout?.id) this.status.bank.payoutId = payout.id;
    const receipt = receiptOf(payout);
    if (receipt.id) this.status.bank.receiptId = receipt.id;
    if (receipt.link) this.status.bank.receiptLink = receipt.link;
    if (payout?.transaction_info?.rrn) this.status.bank.rrn = payout.transaction_info.rrn;
    if (payout?.transaction_info?.auth_code) this.status.bank.authCode = payout.transaction_info.auth_code;
    const next = laterPhase(this.phase, reading.phase);
    if (next !== this.phase && next === 'failed') {
      this.status.failure = {
        code: reading.errorCode ?? 'unknown_error',
        reason: reading.errorDescription ?? 'the bank reported the payout failed',
      };
    }
    this.phase = next;
  }

  /** Applies a webhook once: the bank resends, the ingress may deliver twice, order is not promised. */
  applyEvent(evt: BankEventSignal): void {
    if (this.seenEvents.has(evt.id)) return;
    this.seenEvents.add(evt.id);
    if (evt.sessionId && this.sessionId && evt.sessionId !== this.sessionId) {
      this.note(`ignored ${evt.type} for another session ${evt.sessionId}`);
      return;
    }
    switch (evt.type) {
      case 'ready_to_confirm':
        this.readyToConfirmSignalled = true;
        if (evt.session) this.applySession(evt.session, 'ready_to_confirm');
        break;
      case 'payment_finished':
        if (evt.session) this.applySession(evt.session, 'payment_finished');
        break;
      case 'confirmation_payout':
        if (evt.confirmation) this.credited ??= evt.confirmation;
        break;
      case 'payment_refunded':
        this.returnedAt ??= evt.receivedAt;
        break;
      default:
        this.note(`ignored ${evt.type} event`);
    }
  }
}
