import { type BankEventSignal } from './shared/bank-event-contract';
import {
  type InboxLate,
  type InboxOrphan,
  type InboxRouted,
  type InboxTopup,
  type InboxUnknown,
} from './contracts/inbox';

// What the webhook inbox carries over continue-as-new: private to workflows/webhook-inbox.ts.

export interface InboxPending {
  event: BankEventSignal;
  /** Workflow time (ms) the inbox took it: the reroute window counts from here, across continue-as-new. */
  since: number;
}

/** Everything the inbox carries over continue-as-new. */
export interface WebhookInboxState {
  pending: InboxPending[];
  routedCount: number;
  routed: InboxRouted[];
  orphaned: InboxOrphan[];
  topups: InboxTopup[];
  unknown: InboxUnknown[];
  dismissedCount: number;
  /** Events for workflows that had already closed (newest kept), and how many there were in all. */
  late?: InboxLate[];
  lateCount?: number;
  /** Malformed signals ignored, and orphans dropped past the bound (both logged), in all. */
  malformedCount?: number;
  orphansDropped?: number;
  /** Most recent event ids, oldest first: a resent webhook is recognised and kept once. */
  seenIds: string[];
}
