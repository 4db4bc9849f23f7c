import { defineQuery, defineUpdate } from '@temporalio/workflow';

// The recipient's workflow: one per person (its id a keyed HMAC of the tax number, like the taxpayer's),
// the one writer of what payrun paid and reserved for them, by calendar year in Moscow time.

export const recipientWorkflowId = (taxNumberHash: string) => `recipient-${taxNumberHash}`;

/** The ledgers run on a queue of their own beside payrun's (src/worker/create.ts says why). */
export const recipientTaskQueue = (taskQueue: string) => `${taskQueue}-recipients`;

/** The limits a reservation is checked against, as the worker's policy sets them for this person. */
export interface IncomeLimits {
  /** Self-employed rows: the year's cap for payrun's payouts (2 400 000,00 ₽ less the margin). */
  yearlyCapKopecks?: number;
  /** Income this person had this year from elsewhere, which payrun does not see. */
  knownIncomeKopecks?: number;
  perPayoutKopecks?: number;
  perMonthKopecks?: number;
}

export interface ReserveRequest {
  reference: string;
  /** The payout workflow the reservation belongs to: the ledger reads its outcome there. */
  workflowId: string;
  amount: number;
  selfEmployed: boolean;
  /** When the reservation is made (ISO 8601): its Moscow calendar year and month are the ones it counts in. */
  at: string;
  limits: IncomeLimits;
}

export type LimitKind = 'yearly_cap' | 'per_payout' | 'per_month';

export type ReserveAnswer =
  | { ok: true; year: number; headroomKopecks?: number }
  | {
      ok: false;
      limit: LimitKind;
      limitKopecks: number;
      /** What is left under that limit now (never negative). */
      headroomKopecks: number;
      year: number;
    };

export interface RecipientYearView {
  year: number;
  /** Paid this year by payrun (payouts that succeeded, less returns). */
  paidKopecks: number;
  /** Held by payouts in flight. */
  reservedKopecks: number;
  /** The newest payouts of the year, newest last. */
  payouts: { reference: string; amount: number; at: string; state: 'paid' | 'reserved' | 'returned' }[];
}

export interface RecipientView {
  years: RecipientYearView[];
  openReservations: number;
  /** The latest request sent to the bank asking this person to link payrun's partner, if any. */
  link?: LinkRequestView;
}

/**
 * What a ledger run started from, for its successor when it did not end by continue-as-new (terminated by
 * hand): the state it was given or rebuilt, and every reservation it accepted after (activities/recipient.ts).
 */
export interface PreviousLedger {
  state?: unknown;
  reservations: ReserveRequest[];
}

/** `payrun recipient link`: ask the bank to send this person a link request (docs/payouts.md#linking). */
export interface RequestLinkInput {
  /** The ledger's own person (the activity checks it against the ledger's id); never logged. */
  taxReference: string;
  /** Where the bank sends the person back after linking. */
  returnUrl?: string;
  /** A new request even while the last one is still open (it was declined, or the person lost it). */
  again?: boolean;
  /** Who asked (the signed-in person or the operating-system user), for the record. */
  requestedBy: string;
}

/** A link request as the bank answered it: what to pass on to the person, and until when it holds. */
export interface LinkRequestView {
  requestId?: string;
  /** The address the person opens to link payrun's partner. */
  url?: string;
  sentAt: string;
  expiresAt?: string;
  requestedBy: string;
}

/** `sent` is false when the open request was answered again instead of a new one being sent. */
export interface RequestLinkAnswer {
  sent: boolean;
  link: LinkRequestView;
}

/**
 * Reserves a payout's amount before its bank session exists: refused (with the limit and the headroom)
 * when it would pass a limit. Idempotent per reference: a retried or restarted payout finds its reservation.
 */
export const reserveIncomeUpdate = defineUpdate<ReserveAnswer, [ReserveRequest]>('reserveIncome');

export const recipientQuery = defineQuery<RecipientView>('ledger');

/** What is left for this person under the limits given, at the moment given (its Moscow year and month). */
export interface HeadroomAsk {
  limits: IncomeLimits;
  at: string;
}

export interface LedgerHeadroom {
  year: number;
  /** Left under the self-employed cap (less the income known from elsewhere), when a cap is given. */
  capLeftKopecks?: number;
  /** Left under the monthly limit this month, when one is given. */
  monthLeftKopecks?: number;
}

/** The dry run's and the report's question: a read, the same figures a reservation is judged against. */
export const headroomQuery = defineQuery<LedgerHeadroom, [HeadroomAsk]>('headroom');

/** Reads what became of every reserved payout, then answers the figures: `payrun recipient show` sends it. */
export const refreshRecipientUpdate = defineUpdate<RecipientView, []>('refresh');

/**
 * Sends the bank's link request for this person, once: while the last one is open (not past its expiry)
 * the same request is answered again, unless `again` asks for a new one.
 */
export const requestLinkUpdate = defineUpdate<RequestLinkAnswer, [RequestLinkInput]>('requestLink');
