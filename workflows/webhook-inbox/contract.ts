import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import { nonBlank } from '../../src/domain';
import { type BankEventSignal, type BankEventType } from '../shared/bank-event-contract';
import { count, DAY, HOUR, millis, object, operatorName, parseWith, type Result } from '../shared/parse';

// The webhook inbox workflow's contract: its id and type, input, query and signals.

/** Bank events that match no running payrun workflow are kept here for operators. */
export const WEBHOOK_INBOX_WORKFLOW_ID = 'payrun-webhook-inbox';

/** The inbox's workflow type, for processes that reach it by name without loading workflow code. */
export const WEBHOOK_INBOX_WORKFLOW_TYPE = 'webhookInboxWorkflow';

/** How long and how often the inbox retries routing an event no workflow took. */
export const webhookInboxOptionsSchema = () =>
  object({
    /** Total time to keep retrying before the event becomes an orphan. Default 15 minutes. */
    rerouteWindowMs: millis(0, DAY).optional(),
    /** First retry interval (doubling up to rerouteMaxIntervalMs). Default 2 s. */
    rerouteInitialIntervalMs: millis(100, HOUR).optional(),
    /** Default 60 s. */
    rerouteMaxIntervalMs: millis(100, HOUR).optional(),
    /** How many routed events the query shows (the count is kept whole). Default 50. */
    routedKept: count(0, 1_000).optional(),
    /** Continue-as-new after this many history events even if the server does not suggest it. Default 2 000. */
    continueAsNewAfterEvents: count(10, 40_000).optional(),
  });
export type WebhookInboxOptions = z.infer<ReturnType<typeof webhookInboxOptionsSchema>>;

// What the inbox keeps. Only the inbox writes these (its continue-as-new carries them), so the lists'
// items are checked for the fields it reads and otherwise kept as they are.

/** An event as the inbox keeps it: checked by parseBankEvent when it arrived. */
const keptEvent = () =>
  z.custom<BankEventSignal>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    error: 'expected a bank event',
  });
const summaryShape = () => ({
  id: z.string(),
  type: z.custom<BankEventType>((v) => typeof v === 'string'),
  sessionId: z.string().optional(),
  receivedAt: z.string(),
});
const tally = () => z.number().int().nonnegative();

export const inboxRoutedSchema = () =>
  z.looseObject({ ...summaryShape(), routedAt: z.string(), delivered: z.array(z.string()) });
export type InboxRouted = z.infer<ReturnType<typeof inboxRoutedSchema>>;

export const inboxOrphanSchema = () =>
  z.looseObject({ event: keptEvent(), orphanedAt: z.string(), reason: z.string() });
export type InboxOrphan = z.infer<ReturnType<typeof inboxOrphanSchema>>;

/** A nominal account top-up as the batch workflow will read it (amounts in kopecks). */
export const inboxTopupSchema = () =>
  z.looseObject({
    id: z.string(),
    receivedAt: z.string(),
    amount: z.number(),
    currency: z.string(),
    accountBalance: z.number(),
    paymentDate: z.string(),
    accountNumber: z.string().optional(),
    docId: z.string().optional(),
    docNum: z.string().optional(),
  });
export type InboxTopup = z.infer<ReturnType<typeof inboxTopupSchema>>;

export const inboxUnknownSchema = () =>
  z.looseObject({ id: z.string(), receivedAt: z.string(), body: z.unknown() });
export type InboxUnknown = z.infer<ReturnType<typeof inboxUnknownSchema>>;

export const inboxLateSchema = () =>
  z.looseObject({
    ...summaryShape(),
    /** The closed workflows the event belongs to. */
    owners: z.array(z.string()),
    /** confirmation_payout wording, when it is one. */
    confirmation: z
      .custom<NonNullable<BankEventSignal['confirmation']>>((v) => typeof v === 'object')
      .optional(),
  });
export type InboxLate = z.infer<ReturnType<typeof inboxLateSchema>>;

const stateShape = () => ({
  /** Events being rerouted, with the workflow time (ms) the inbox took each: the window counts from there. */
  pending: z.array(z.looseObject({ event: keptEvent(), since: z.number() })),
  routedCount: tally(),
  routed: z.array(inboxRoutedSchema()),
  orphaned: z.array(inboxOrphanSchema()),
  topups: z.array(inboxTopupSchema()),
  unknown: z.array(inboxUnknownSchema()),
  dismissedCount: tally(),
  /** Events for workflows that had already closed (newest kept), and how many there were in all. */
  late: z.array(inboxLateSchema()).optional(),
  lateCount: tally().optional(),
  /** Malformed signals ignored, and orphans dropped past the bound (both logged), in all. */
  malformedCount: tally().optional(),
  orphansDropped: tally().optional(),
  /** Most recent event ids, oldest first: a resent webhook is recognised and kept once. */
  seenIds: z.array(z.string()),
});

/**
 * Everything the inbox carries over continue-as-new, whole. Strict: a field the run holds and this
 * schema does not name is refused (test/workflows/webhook-inbox-run.test.ts holds the run to it).
 */
export const webhookInboxStateSchema = () => z.strictObject(stateShape(), { error: 'expected an object' });
export type WebhookInboxState = z.infer<ReturnType<typeof webhookInboxStateSchema>>;
export type InboxPending = WebhookInboxState['pending'][number];

export const webhookInboxInputSchema = () =>
  object({
    options: webhookInboxOptionsSchema().optional(),
    /**
     * Set by the inbox itself when it continues as new. Fields a later version added pass through, so
     * a rolled-back worker still takes the state it left.
     */
    state: z.looseObject(stateShape(), { error: 'expected an object' }).optional(),
  });
export type WebhookInboxInput = z.infer<ReturnType<typeof webhookInboxInputSchema>>;

/** Started with no input (signalWithStart from the ingress passes `{}`), the inbox runs on its defaults. */
export function parseWebhookInboxInput(raw: unknown): Result<WebhookInboxInput> {
  return parseWith<WebhookInboxInput>(webhookInboxInputSchema(), raw ?? {});
}

export const orphanDismissalSchema = () => object({ id: nonBlank(256, 'an event id'), by: operatorName() });
export type OrphanDismissal = z.infer<ReturnType<typeof orphanDismissalSchema>>;

export function parseOrphanDismissal(raw: unknown): Result<OrphanDismissal> {
  return parseWith<OrphanDismissal>(orphanDismissalSchema(), raw);
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
export const dismissOrphanSignal = defineSignal<[OrphanDismissal]>('dismissOrphan');
