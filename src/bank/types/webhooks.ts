import { z } from 'zod';
import { PaymentSessionSchema } from './session';

/**
 * The seven webhook bodies, read loosely ("the field set of a webhook may grow over time").
 * Sessions arrive with v1 names whatever version the bank used (versioning.ts maps them).
 */

export const ReadyToConfirmEventSchema = z.looseObject({
  type: z.literal('ready_to_confirm'),
  session: PaymentSessionSchema,
  /** Only for nominal-account operations; its fields are not shown, so it passes through. */
  confirm_information: z.unknown().optional(),
});
export type ReadyToConfirmEvent = z.infer<typeof ReadyToConfirmEventSchema>;

export const PaymentFinishedEventSchema = z.looseObject({
  type: z.literal('payment_finished'),
  session: PaymentSessionSchema,
});
export type PaymentFinishedEvent = z.infer<typeof PaymentFinishedEventSchema>;

export const ActionRequiredEventSchema = z.looseObject({
  type: z.literal('action_required'),
  session: PaymentSessionSchema,
});
export type ActionRequiredEvent = z.infer<typeof ActionRequiredEventSchema>;

export const ReadyToCaptureEventSchema = z.looseObject({
  type: z.literal('ready_to_capture'),
  session: PaymentSessionSchema,
});
export type ReadyToCaptureEvent = z.infer<typeof ReadyToCaptureEventSchema>;

export const PaymentRefundedEventSchema = z.looseObject({
  type: z.literal('payment_refunded'),
  session: PaymentSessionSchema,
});
export type PaymentRefundedEvent = z.infer<typeof PaymentRefundedEventSchema>;

export const CONFIRMATION_PAYOUT_EVENTS = [
  'Payout accepted Central Bank',
  "Funds credited recipient's account",
] as const;

export const ConfirmationPayoutEventSchema = z.looseObject({
  type: z.literal('confirmation_payout'),
  /** One of CONFIRMATION_PAYOUT_EVENTS; kept a string so new wordings do not reject the webhook. */
  event: z.string(),
  event_date: z.string(),
  transaction_id: z.string().optional(),
  session_id: z.string(),
});
export type ConfirmationPayoutEvent = z.infer<typeof ConfirmationPayoutEventSchema>;

/**
 * nominal_topup has no `type` in the spec (decision D7): it is recognised by its required fields
 * and given `type: 'nominal_topup'` here, so callers switch on `type` like for every other event.
 */
export const NominalTopupEventSchema = z.looseObject({
  type: z.literal('nominal_topup').default('nominal_topup'),
  inn: z.string(),
  kpp: z.string().nullish(),
  account_number: z.string(),
  account_balance: z.number().int(),
  doc_id: z.union([z.string(), z.number()]),
  doc_num: z.union([z.string(), z.number()]),
  amount: z.number().int(),
  currency: z.string(),
  paymentDate: z.string(),
  purpose: z.string().nullish(),
  contragent_name: z.string().nullish(),
  contragent_inn: z.string().nullish(),
  contragent_kpp: z.string().nullish(),
  contragent_account_number: z.string(),
  contragent_bank_bik: z.string(),
  contragent_bank_name: z.string().nullish(),
});
export type NominalTopupEvent = z.infer<typeof NominalTopupEventSchema>;

/** Fields only a nominal_topup carries: their presence identifies one. */
export const NOMINAL_TOPUP_MARKERS = ['doc_id', 'account_balance', 'contragent_account_number'] as const;

export interface UnknownEvent {
  type: 'unknown';
  /** The body as received. */
  raw: unknown;
}

export const WEBHOOK_SCHEMAS = {
  ready_to_confirm: ReadyToConfirmEventSchema,
  payment_finished: PaymentFinishedEventSchema,
  action_required: ActionRequiredEventSchema,
  ready_to_capture: ReadyToCaptureEventSchema,
  payment_refunded: PaymentRefundedEventSchema,
  confirmation_payout: ConfirmationPayoutEventSchema,
  nominal_topup: NominalTopupEventSchema,
} as const;

export type BankWebhookEvent =
  | ReadyToConfirmEvent
  | PaymentFinishedEvent
  | ActionRequiredEvent
  | ReadyToCaptureEvent
  | PaymentRefundedEvent
  | ConfirmationPayoutEvent
  | NominalTopupEvent
  | UnknownEvent;
