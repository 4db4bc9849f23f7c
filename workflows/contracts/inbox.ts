import { defineQuery, defineSignal } from '@temporalio/workflow';
import { type BankEventSignal, type BankEventType } from '../shared/bank-event-contract';

// The webhook inbox workflow's contract: its id and type, input, query and signals.

/** Bank events that match no running payrun workflow are kept here for operators. */
export const WEBHOOK_INBOX_WORKFLOW_ID = 'payrun-webhook-inbox';

/** The inbox's workflow type, for processes that reach it by name without loading workflow code. */
export const WEBHOOK_INBOX_WORKFLOW_TYPE = 'webhookInboxWorkflow';

/** How long and how often the inbox retries routing an event no workflow took. */
export interface WebhookInboxOptions {
  /** Total time to keep retrying before the event becomes an orphan. Default 15 minutes. */
  rerouteWindowMs?: number;
  /** First retry interval (doubling up to rerouteMaxIntervalMs). Default 2 s. */
  rerouteInitialIntervalMs?: number;
  /** Default 60 s. */
  rerouteMaxIntervalMs?: number;
  /** How many routed events the query shows (the count is kept whole). Default 50. */
  routedKept?: number;
  /** Continue-as-new after this many history events even if the server does not suggest it. Default 2 000. */
  continueAsNewAfterEvents?: number;
}

export interface InboxRouted {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  routedAt: string;
  delivered: string[];
}

export interface InboxOrphan {
  event: BankEventSignal;
  orphanedAt: string;
  reason: string;
}

/** A nominal account top-up as the batch workflow will read it (amounts in kopecks). */
export interface InboxTopup {
  id: string;
  receivedAt: string;
  amount: number;
  currency: string;
  accountBalance: number;
  paymentDate: string;
  accountNumber?: string;
  docId?: string;
  docNum?: string;
}

export interface InboxUnknown {
  id: string;
  receivedAt: string;
  body: unknown;
}

export interface InboxLate {
  id: string;
  type: BankEventType;
  sessionId?: string;
  receivedAt: string;
  /** The closed workflows the event belongs to. */
  owners: string[];
  /** confirmation_payout wording, when it is one. */
  confirmation?: BankEventSignal['confirmation'];
}

export interface WebhookInboxInput<State = unknown> {
  options?: WebhookInboxOptions;
  /** Set by the inbox itself when it continues as new. */
  state?: State;
}

export interface InboxView {
  pending: { id: string; type: BankEventType; sessionId?: string; receivedAt: string }[];
  routed: { count: number; last: InboxRouted[] };
  orphaned: InboxOrphan[];
  topups: InboxTopup[];
  unknown: InboxUnknown[];
  dismissedCount: number;
  late: { count: number; last: InboxLate[] };
  /** Malformed signals the inbox noted and ignored. */
  ignoredMalformed: number;
  /** Orphans dropped because more than the inbox keeps were waiting for an operator (each logged). */
  orphansDropped: number;
}

export const inboxQuery = defineQuery<InboxView>('inbox');

/** An operator has dealt with an orphaned event: it leaves the orphan list. */
export const dismissOrphanSignal = defineSignal<[{ id: string; by: string }]>('dismissOrphan');
