import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { isPayoutReference, isPayoutWorkflowId } from '../../src/domain/rules';

// The recipient's workflow: one per person (its id a keyed HMAC of the tax number, like the taxpayer's),
// the one writer of what payrun paid and reserved for them, by calendar year in Moscow time.

/** The ledger's id from the keyed hash of the tax number (activities/recipient.ts computes the hash). */
export const recipientWorkflowId = (taxNumberHash: string) => `recipient-${taxNumberHash.slice(0, 24)}`;

/** The ledgers run on a queue of their own beside payrun's (src/worker/create.ts says why). */
export const recipientTaskQueue = (taskQueue: string) => `${taskQueue}-recipients`;

/** Strict where the ledger writes (its tests hold it to the schema), loose where a state is taken. */
const shaped = (strict: boolean) => (strict ? z.strictObject : z.looseObject);

const limit = () => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional();

/** The limits a reservation is checked against, as the worker's policy sets them for this person. */
export const incomeLimitsSchema = () =>
  z.strictObject({
    /** Self-employed rows: the year's cap for payrun's payouts (2 400 000,00 ₽ less the margin). */
    yearlyCapKopecks: limit(),
    /** Income this person had this year from elsewhere, which payrun does not see. */
    knownIncomeKopecks: limit(),
    perPayoutKopecks: limit(),
    perMonthKopecks: limit(),
  });
export type IncomeLimits = z.infer<ReturnType<typeof incomeLimitsSchema>>;

/** A Temporal run id: a UUID, which the server's describe takes. */
const RUN_ID = () => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a payout sends its recipient's ledger. Only `reference`, `workflowId`, `runId` and `amount` are
 * asked of the sender; the ledger proves them against the payout's run and takes everything else (the
 * person, self-employed or not, the date, the limits) from that run and the worker's policy (provePayouts).
 */
export const reserveRequestSchema = () =>
  z.strictObject({
    reference: z.string().refine(isPayoutReference, 'expected a payout reference'),
    /** The payout workflow the reservation belongs to: the ledger reads its outcome there. */
    workflowId: z.string().refine(isPayoutWorkflowId, 'expected a payout workflow id'),
    /** The payout's run that asks (absent only in reservations recorded before they were proven: refused). */
    runId: z.string().regex(RUN_ID(), 'expected a run id').optional(),
    amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    selfEmployed: z.boolean(),
    /** Recorded before reservations were proven: the sender's date and limits, no longer believed. */
    at: z.string().datetime({ message: 'expected an ISO 8601 time' }).optional(),
    limits: incomeLimitsSchema().optional(),
  });
export type ReserveRequest = z.infer<ReturnType<typeof reserveRequestSchema>>;

/**
 * Built once per workflow thread, not per reservation: a person's ledger validates every reservation sent
 * to it, and building the schema cost more than parsing with it. Not exported, so out of reach of the
 * freeze the SDK gives a preloaded module's exports (zod rewrites a schema's parse on first use).
 */
const reserveRequest = reserveRequestSchema();

export function parseReserveRequest(raw: unknown): Parsed<ReserveRequest> {
  return firstIssue(reserveRequest.safeParse(raw));
}

/** At most this many reservations travel in one Update (activities/courier.ts sends them). */
export const RESERVATIONS_PER_UPDATE_MAX = 100;

/** Several payouts' reservations in one Update, each judged as if it came alone. Built once, as above. */
const reserveRequests = z.array(reserveRequest).min(1).max(RESERVATIONS_PER_UPDATE_MAX);

export function parseReserveRequests(raw: unknown): Parsed<ReserveRequest[]> {
  return firstIssue(reserveRequests.safeParse(raw));
}

const reservationSchema = (strict = true) =>
  shaped(strict)({
    reference: z.string(),
    workflowId: z.string(),
    /** The payout run the ledger proved it came from (absent: held before reservations were proven). */
    runId: z.string().optional(),
    amount: z.number(),
    selfEmployed: z.boolean(),
    year: z.number(),
    month: z.string(),
    at: z.string(),
  });
export type Reservation = z.infer<ReturnType<typeof reservationSchema>>;

const yearRecordSchema = (strict = true) =>
  shaped(strict)({
    /** Income of self-employed payouts, which the yearly cap counts. */
    capIncome: z.number(),
    /** Every payout's income, which the view and the monthly limit count. */
    income: z.number(),
    byMonth: z.record(z.string(), z.number()),
    /** Paid references, each counted once however often its payout is settled. */
    paid: z.record(
      z.string(),
      shaped(strict)({
        amount: z.number(),
        selfEmployed: z.boolean(),
        month: z.string(),
        at: z.string(),
        returned: z.boolean().optional(),
      }),
    ),
  });
export type YearRecord = z.infer<ReturnType<typeof yearRecordSchema>>;

const ledgerStateShape = (strict = true) => ({
  years: z.record(z.string(), yearRecordSchema(strict)),
  reservations: z.record(z.string(), reservationSchema(strict)),
  /** Reservations refused as not from a payout, newest last (at most REFUSED_KEPT, ledger.ts): shown, never counted. */
  refused: z.array(refusedReservationSchema(strict)).optional(),
  /** The latest link request sent to the bank for this person, and how many were sent in all. */
  link: linkRequestViewSchema(strict).optional(),
  linkRequests: z.number().int().nonnegative().optional(),
});

/**
 * Everything a ledger holds, carried whole over continue-as-new. Strict: a field the ledger writes and
 * this schema does not name is refused (test/workflows/recipient-ledger-run.test.ts holds the run to it).
 */
export const ledgerStateSchema = () => z.strictObject(ledgerStateShape());
export type LedgerState = z.infer<ReturnType<typeof ledgerStateSchema>>;

/**
 * A carried or rebuilt state as the next run takes it: fields a later version added pass, at every level
 * (a rolled-back worker, a ledger running since before a field existed); the types must still hold.
 */
export const carriedLedgerStateSchema = () => z.looseObject(ledgerStateShape(false));

export const recipientInputSchema = () =>
  z.object({
    /** Carried over continue-as-new; taken only by a run continued from the ledger's own. */
    state: carriedLedgerStateSchema().optional(),
    /**
     * Continue as new after this many reservations in a run, on top of the server's own suggestion (tests
     * drive a ledger through continue-as-new with it). Taken from any run and carried: it only sets when a
     * run hands over, never what the ledger counts.
     */
    continueAfterReservations: z.number().int().min(1).max(1_000_000).optional(),
  });
export type RecipientWorkflowInput = z.infer<ReturnType<typeof recipientInputSchema>>;

export function parseRecipientInput(raw: unknown): Parsed<RecipientWorkflowInput> {
  return firstIssue(recipientInputSchema().safeParse(raw ?? {}));
}

/** A reservation as the ledger judges it: dated, with the limits that apply. */
export interface ReservationToJudge extends ReserveRequest {
  at: string;
  limits: IncomeLimits;
}

export type LimitKind = 'yearly_cap' | 'per_payout' | 'per_month';

const UNPROVEN_WHY = [
  'no_run',
  'not_its_workflow',
  'no_such_run',
  'run_closed',
  'not_a_payout',
  'unreadable_input',
  'other_reference',
  'other_amount',
  'other_recipient',
  'other_kind',
] as const;
/** Why the ledger did not believe a reservation came from the payout it names (src/recipient/proof.ts). */
export type UnprovenWhy = (typeof UNPROVEN_WHY)[number];

export type ReserveAnswer =
  | {
      ok: true;
      year: number;
      headroomKopecks?: number;
      /** When the ledger dated the reservation (its year and month are the ones it counts in). */
      at?: string;
    }
  | {
      ok: false;
      limit: LimitKind;
      limitKopecks: number;
      /** What is left under that limit now (never negative). */
      headroomKopecks: number;
      year: number;
    }
  | {
      ok: false;
      /** Not proven to come from the payout it names: kept as refused, never counted. */
      unproven: UnprovenWhy;
      reason: string;
      limit?: never;
    };

/** What the ledger's provePayouts activity found for a reservation. */
export type PayoutProof =
  | {
      ok: true;
      /** From the payout's own input, not the sender. */
      selfEmployed: boolean;
      /** The worker's clock: the reservation counts in this moment's Moscow year and month. */
      at: string;
      /** The worker's policy for this person; absent, no limit applies. */
      limits?: IncomeLimits;
    }
  | { ok: false; why: UnprovenWhy; reason: string };

export interface ProvePayoutAsk {
  reference: string;
  workflowId: string;
  runId: string;
  amount: number;
  selfEmployed: boolean;
}

/** A reservation the ledger refused as not from a payout: shown, never counted. */
export const refusedReservationSchema = (strict = true) =>
  shaped(strict)({
    reference: z.string(),
    workflowId: z.string(),
    runId: z.string().optional(),
    amount: z.number(),
    /** When the ledger refused it (workflow time). */
    at: z.string(),
    why: z.enum(UNPROVEN_WHY),
    reason: z.string(),
  });
export type RefusedReservation = z.infer<ReturnType<typeof refusedReservationSchema>>;

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
  /** The newest reservations refused as not from a payout, newest last (absent: none). */
  refused?: RefusedReservation[];
  /** The latest request sent to the bank asking this person to link payrun's partner, if any. */
  link?: LinkRequestView;
}

/**
 * What a ledger run started from, for its successor when it did not end by continue-as-new (terminated by
 * hand): the state it was given or rebuilt, and every reservation it accepted after (activities/recipient.ts).
 */
export interface PreviousLedger {
  state?: unknown;
  reservations: (ReserveRequest & { at: string })[];
  /** Reservations it refused as not from a payout: shown again, never counted (absent in older records). */
  refused?: RefusedReservation[];
}

/** `payrun recipient link`: ask the bank to send this person a link request (docs/payouts.md#linking). */
export const requestLinkSchema = () =>
  z.strictObject({
    /** The ledger's own person (the activity checks it against the ledger's id); never logged. */
    taxReference: z.string().regex(/^\d{12}$/, 'expected a self-employed person’s tax number (12 digits)'),
    /** Where the bank sends the person back after linking. */
    returnUrl: z
      .string()
      .max(2_000)
      .regex(/^https?:\/\/[^\s]+$/, 'expected an http(s) address')
      .optional(),
    /** A new request even while the last one is still open (it was declined, or the person lost it). */
    again: z.boolean().optional(),
    /** Who asked (the signed-in person or the operating-system user), for the record. */
    requestedBy: z.string().min(1).max(128),
  });
export type RequestLinkInput = z.infer<ReturnType<typeof requestLinkSchema>>;

export function parseRequestLink(raw: unknown): Parsed<RequestLinkInput> {
  return firstIssue(requestLinkSchema().safeParse(raw));
}

/** A link request as the bank answered it: what to pass on to the person, and until when it holds. */
export const linkRequestViewSchema = (strict = true) =>
  shaped(strict)({
    requestId: z.string().optional(),
    /** The address the person opens to link payrun's partner. */
    url: z.string().optional(),
    sentAt: z.string(),
    expiresAt: z.string().optional(),
    requestedBy: z.string(),
  });
export type LinkRequestView = z.infer<ReturnType<typeof linkRequestViewSchema>>;

/** `sent` is false when the open request was answered again instead of a new one being sent. */
export interface RequestLinkAnswer {
  sent: boolean;
  link: LinkRequestView;
}

/**
 * Reserves a payout's amount before its bank session exists: refused (with the limit and the headroom)
 * when it would pass a limit, and refused (kept visible, never counted) unless the ledger proves it came
 * from the running payout run it names. Idempotent per reference and run: a retried payout finds its
 * reservation.
 */
export const reserveIncomeUpdate = defineUpdate<ReserveAnswer, [ReserveRequest]>('reserveIncome');

/**
 * The reservations of several payouts at once, answered in the order sent: each proven and judged exactly
 * as `reserveIncome` judges one (the worker sends those that reach a ledger while its previous Update is
 * still in flight together, so a busy ledger takes one Update, one proof and one workflow task for many).
 */
export const reserveIncomeManyUpdate = defineUpdate<ReserveAnswer[], [ReserveRequest[]]>('reserveIncomeMany');

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
  /**
   * How far what is paid and held already passes the cap (a cap lowered, or income from elsewhere learnt,
   * after the reservations were made); absent when within it. A held row that wakes into this is refused.
   */
  capOverKopecks?: number;
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

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** The first problem, named by its path: an Update's validator rejects with it. */
function firstIssue<T>(r: z.ZodSafeParseResult<T>): Parsed<T> {
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, message: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}

/**
 * The type of the failure a ledger answers a reservation with while it hands over to its next run (its
 * validator turns it away, so nothing is written): the reservation is asked again, and the next run takes it.
 */
export const LEDGER_CONTINUING = 'ledger_continuing';

/** The newest refused reservations kept (and carried over continue-as-new): enough to see an attempt. */
export const REFUSED_KEPT = 20;

export type PayoutOutcome = 'paid' | 'not_paid' | 'returned' | 'open';

/**
 * A payout the recipient's bank sent back (workflows/payout-return/): its income leaves the year. The
 * ledger believes only the return workflow of that session, read by an activity; a second take-back of
 * the same reference answers `already` and changes nothing.
 */
export const takeBackIncomeSchema = () =>
  z.strictObject({
    reference: z.string().refine(isPayoutReference, 'expected a payout reference'),
    sessionId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'expected a bank session id'),
  });
export type TakeBackIncome = z.infer<ReturnType<typeof takeBackIncomeSchema>>;
export type TakeBackAnswer = { ok: true; already: boolean } | { ok: false; why: string };

export function parseTakeBack(raw: unknown): Parsed<TakeBackIncome> {
  return firstIssue(takeBackIncomeSchema().safeParse(raw));
}

export const takeBackIncomeUpdate = defineUpdate<TakeBackAnswer, [TakeBackIncome]>('takeBackIncome');
