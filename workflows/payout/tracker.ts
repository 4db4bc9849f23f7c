import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { PaymentSession } from '../../src/bank/types/session';
import {
  laterPhase,
  readPayoutSession,
  receiptOf,
  refundsOf,
  type SessionPhase,
} from '../shared/bank-session';
import type { BankEventSignal, SignedWebhook } from '../shared/bank-event-contract';
import type { PayoutFailure, PayoutInput, PayoutState, PayoutStatus } from './contract';
import type { TrackerSnapshot } from './state';
import { AMOUNT_KOPECKS, BATCH_ID, PAYOUT_REF, SESSION_ID, STATE } from '../shared/search-attributes';

/** Where the tracker writes search attributes and reads the time: the workflow's, or a test's. */
export interface TrackerEnvironment {
  upsert(attrs: SearchAttributeUpdatePair[]): void;
  now(): string;
}

/** Signed webhooks waiting to be checked; more than this many unchecked is a flood, not the bank. */
const MAX_UNCHECKED_WEBHOOKS = 8;
/**
 * What a flood of forged signals may make a payout keep: the status shows the newest notes and says how
 * many older ones were dropped; event ids are remembered (to take a resent webhook once) up to a bound,
 * far above the few dozen events one bank session has.
 */
export const NOTES_KEPT = 50;
export const EVENT_IDS_KEPT = 1_000;

/**
 * Everything a payout workflow knows, in the one shape its `status` query and result give: the state,
 * the bank's ids, every timestamp. Bank events are evidence, not commands: the money state moves on
 * what the bank itself said — the create answer, session/status, or a webhook whose signature the
 * worker checked (`unchecked`) — never on a signal's word. An event without the bank's signature only
 * tells the workflow to read its own session from the bank (`nudged`).
 */
export class PayoutTracker {
  readonly status: PayoutStatus;
  phase: SessionPhase = 'processing';
  /** A bank event arrived that the last session reading does not explain yet: read session/status. */
  nudged = false;
  /** Signed session webhooks not yet checked: believed once the worker verifies the bank's signature. */
  unchecked: SignedWebhook[] = [];
  credited?: { event: string; eventDate: string };
  returnedAt?: string;
  private readonly seenEvents = new Set<string>();
  private notesDropped = 0;
  private readonly published = new Map<string, string | number>();
  private stateShown = false;

  constructor(
    input: PayoutInput,
    private readonly env: TrackerEnvironment,
  ) {
    const { request } = input;
    this.status = {
      reference: request.reference,
      state: request.selfEmployed ? 'checking_taxpayer' : 'creating_session',
      amount: request.amount,
      currency: request.currency,
      ...(input.batchId ? { batchId: input.batchId } : {}),
      payee: { taxReference: request.recipient.taxReference, method: request.method },
      bank: {},
      approval: { required: input.options?.requireApproval === true },
      timestamps: { started: env.now() },
      notes: [],
    };
    this.status.changes = [[this.status.state, this.status.timestamps.started!]];
  }

  /**
   * Writes the search attributes that changed since the last call. A payout writes them only where
   * someone searches by them: once the session exists (reference, amount, batch, session id — the
   * ingress's fallback route), when it waits for a person (awaiting_approval) and when that wait ends,
   * and when it ends needing attention. Paid or not paid is the execution status itself; every upsert
   * is an event and a server write per payout, so none is spent on a state nobody looks for.
   */
  publish(showState = false): void {
    // Once a state was shown (awaiting_approval), every later publish keeps it true.
    this.stateShown ||= showState;
    const attrs: SearchAttributeUpdatePair[] = [];
    const want: [SearchAttributeUpdatePair['key'], string | number | undefined][] = [
      [PAYOUT_REF, this.status.reference],
      [AMOUNT_KOPECKS, this.status.amount],
      [BATCH_ID, this.status.batchId],
      [SESSION_ID, this.status.bank.sessionId],
      [STATE, this.stateShown ? this.status.state : undefined],
    ];
    for (const [key, value] of want) {
      if (value === undefined || this.published.get(key.name) === value) continue;
      this.published.set(key.name, value);
      attrs.push({ key, value } as SearchAttributeUpdatePair);
    }
    if (attrs.length) this.env.upsert(attrs);
  }

  setState(state: PayoutState, timestampKey?: string): void {
    // No command depends on `changes`: it only travels in the status (the events' sequence numbers).
    const changes = this.status.changes;
    const changed = changes !== undefined && changes[changes.length - 1]?.[0] !== state;
    const at = timestampKey !== undefined || changed ? this.env.now() : undefined;
    if (changed) changes.push([state, at!]);
    this.status.state = state;
    if (timestampKey) this.status.timestamps[timestampKey] = at!;
  }

  fail(state: PayoutState, failure: PayoutFailure): PayoutStatus {
    this.status.failure = failure;
    this.setState(state, 'finished');
    return this.status;
  }

  note(text: string): void {
    const notes = this.status.notes;
    if (this.notesDropped > 0) notes.shift(); // the line that counts dropped notes, rewritten below
    notes.push(`${this.env.now()} ${text}`);
    // Once any note is dropped, one of the NOTES_KEPT lines says how many.
    const room = this.notesDropped > 0 || notes.length > NOTES_KEPT ? NOTES_KEPT - 1 : NOTES_KEPT;
    if (notes.length > room) this.notesDropped += notes.splice(0, notes.length - room).length;
    if (this.notesDropped > 0) notes.unshift(`${this.notesDropped} older notes dropped; the newest are kept`);
  }

  /** Everything the tracker knows, for the payout's own continue-as-new (bounded: notes and event ids are). */
  snapshot(): TrackerSnapshot {
    return {
      status: this.status,
      phase: this.phase,
      nudged: this.nudged,
      unchecked: this.unchecked,
      ...(this.credited ? { credited: this.credited } : {}),
      ...(this.returnedAt ? { returnedAt: this.returnedAt } : {}),
      seenEvents: [...this.seenEvents],
      notesDropped: this.notesDropped,
      published: [...this.published],
      stateShown: this.stateShown,
    };
  }

  /** A tracker that goes on from a snapshot its own run took before continuing as new. */
  static restore(input: PayoutInput, s: TrackerSnapshot, env: TrackerEnvironment): PayoutTracker {
    const tracker = new PayoutTracker(input, env);
    Object.assign(tracker.status, s.status);
    tracker.phase = s.phase;
    tracker.nudged = s.nudged;
    tracker.unchecked = [...s.unchecked];
    if (s.credited) tracker.credited = s.credited;
    if (s.returnedAt) tracker.returnedAt = s.returnedAt;
    for (const id of s.seenEvents) tracker.seenEvents.add(id);
    tracker.notesDropped = s.notesDropped;
    for (const [key, value] of s.published) tracker.published.set(key, value);
    tracker.stateShown = s.stateShown;
    return tracker;
  }

  get sessionId(): string | undefined {
    return this.status.bank.sessionId;
  }

  /** Reads a session the bank answered to our own signed request (create, status); phases only move forward. */
  applySession(session: PaymentSession, source: string): void {
    if (!this.status.bank.sessionId) {
      this.status.bank.sessionId = session.id;
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
    if (reading.phase === 'succeeded' && refundsOf(session).length > 0) this.returnedAt ??= this.env.now();
    const next = laterPhase(this.phase, reading.phase);
    if (next !== this.phase && next === 'failed') {
      this.status.failure = {
        code: reading.errorCode ?? 'unknown_error',
        reason: reading.errorDescription ?? 'the bank reported the payout failed',
      };
    }
    this.phase = next;
  }

  /**
   * What the worker's signature check answered: believed sessions count like a session/status answer;
   * any refusal (or nothing believed) still prompts a read, so a refused genuine event beside a believed
   * old one is not lost (after `succeeded` no poll runs, and a return would go unseen).
   */
  applyChecked(checked: { sessions: PaymentSession[]; refused: string[] }): void {
    for (const session of checked.sessions) this.applySession(session, 'a webhook the bank signed');
    for (const why of checked.refused) this.note(`did not believe a bank event: ${why}`);
    if (checked.refused.length > 0 || checked.sessions.length === 0) this.nudged = true;
  }

  /** Hands over the signed webhooks to check, once each. */
  takeUnchecked(): SignedWebhook[] {
    return this.unchecked.splice(0);
  }

  /**
   * Takes note of a webhook once (the bank resends, the ingress may deliver twice, order is not
   * promised). Anyone who can reach Temporal can send this signal, so it moves no money state.
   */
  applyEvent(evt: BankEventSignal): void {
    if (this.seenEvents.has(evt.id)) return;
    this.seenEvents.add(evt.id);
    // Sets iterate in insertion order: the oldest id goes first.
    if (this.seenEvents.size > EVENT_IDS_KEPT) this.seenEvents.delete(this.seenEvents.values().next().value!);
    if (evt.sessionId && this.sessionId && evt.sessionId !== this.sessionId) {
      this.note(`ignored ${evt.type} for another session ${evt.sessionId}`);
      return;
    }
    switch (evt.type) {
      case 'ready_to_confirm':
      case 'payment_finished':
      case 'payment_refunded':
        if (evt.signed && this.unchecked.length < MAX_UNCHECKED_WEBHOOKS) {
          this.unchecked.push(evt.signed);
          this.note(`${evt.type} event received; checking the bank's signature`);
        } else {
          this.nudged = true;
          this.note(`${evt.type} event received; reading session/status`);
        }
        break;
      case 'confirmation_payout':
        // Informational: the money already moved (session/status said succeeded); it changes no decision.
        if (evt.confirmation) this.credited ??= evt.confirmation;
        break;
      default:
        this.note(`ignored ${evt.type} event`);
    }
  }
}
