import { z } from 'zod';
import {
  AmountDetailsParamsSchema,
  AmountDetailsSchema,
  AmountsSchema,
  BankErrorBodySchema,
  CustomerParamsSchema,
  CustomerSchema,
  FiscalizationDetailsParamsSchema,
  FiscalizationDetailsSchema,
  ParticipantDetailsParamsSchema,
  ParticipantDetailsSchema,
  PaymentDetailsParamsSchema,
  PaymentMethodParamsSchema,
  PaymentMethodSchema,
  PaymentOptionsParamsSchema,
  RecurrentTokenSchema,
  TransactionInfoSchema,
} from './common';
import { cardNumber, httpUrl, kopecks, notBlank, rub } from './rules';

// ---- Resources (responses and webhooks; names are the v1 names, see versioning.ts) ----

export const RefundSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  created_at: z.string().optional(),
  finished_at: z.string().nullish(),
  amount_details: AmountDetailsSchema.optional(),
  is_chargeback: z.boolean().optional(),
});
export type Refund = z.infer<typeof RefundSchema>;

const operationFields = {
  id: z.string(),
  status: z.string(),
  created_at: z.string().optional(),
  finished_at: z.string().nullish(),
  customer: CustomerSchema.optional(),
  amount_details: AmountDetailsSchema.optional(),
  amounts: AmountsSchema.optional(),
  participant_details: ParticipantDetailsSchema.optional(),
  metadata: z.unknown().optional(),
  transaction_info: TransactionInfoSchema.optional(),
  error: BankErrorBodySchema.optional(),
};

/** Element of `payments` (v1) / `payout_list` (v2). */
export const PayoutSchema = z.looseObject({
  ...operationFields,
  payment_method: PaymentMethodSchema.optional(),
  fiscalization_details: FiscalizationDetailsSchema.optional(),
  paymentMetadata: z.unknown().optional(),
});
export type Payout = z.infer<typeof PayoutSchema>;

/** Element of `acquiring_payments` (v1) / `payment_list` (v2). */
export const PaymentSchema = z.looseObject({
  ...operationFields,
  payment_details: PaymentMethodSchema.optional(),
  payment_options: z.looseObject({}).optional(),
  recurrent: RecurrentTokenSchema.optional(),
  customer_interaction: z.looseObject({ type: z.string().optional() }).optional(),
  refunds: z.array(RefundSchema).optional(),
});
export type Payment = z.infer<typeof PaymentSchema>;

export const PaymentSessionSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  next_action: z.string().nullish(),
  payments: z.array(PayoutSchema).optional(),
  acquiring_payments: z.array(PaymentSchema).optional(),
  actions: z.looseObject({ confirm: z.string().nullish(), capture: z.string().nullish() }).optional(),
  error: BankErrorBodySchema.optional(),
});
export type PaymentSession = z.infer<typeof PaymentSessionSchema>;

/** The common envelope of session methods on success. */
export const SessionResponseSchema = z.looseObject({ status: z.string(), session: PaymentSessionSchema });
export type SessionResponse = z.infer<typeof SessionResponseSchema>;

/** cancel/confirm/capture: the spec does not promise a session in the answer. */
export const SessionAckResponseSchema = z.looseObject({
  status: z.string(),
  session: PaymentSessionSchema.optional(),
});
export type SessionAckResponse = z.infer<typeof SessionAckResponseSchema>;

// ---- Requests ----

const sessionId = notBlank;
const metadata = z.unknown().optional();

export const SessionCreateParamsSchema = z.looseObject({
  payment_method: PaymentMethodParamsSchema.optional(),
  payment_details: PaymentDetailsParamsSchema.optional(),
  amount_details: AmountDetailsParamsSchema.optional(),
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema.optional(),
  metadata,
});
export type SessionCreateParams = z.input<typeof SessionCreateParamsSchema>;

export const InitPayoutParamsSchema = z.looseObject({
  payment_method: PaymentMethodParamsSchema,
  amount_details: AmountDetailsParamsSchema,
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema.optional(),
  metadata,
});
export type InitPayoutParams = z.input<typeof InitPayoutParamsSchema>;

/** Decision D9: an init request carries everything at once, so the three blocks are required. */
export const InitPayoutFiscalizationParamsSchema = InitPayoutParamsSchema.extend({
  fiscalization_details: FiscalizationDetailsParamsSchema,
});
export type InitPayoutFiscalizationParams = z.input<typeof InitPayoutFiscalizationParamsSchema>;

export const StartPayoutParamsSchema = z.looseObject({
  session_id: sessionId,
  payment_method: PaymentMethodParamsSchema.optional(),
  amount_details: AmountDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema.optional(),
  metadata,
});
export type StartPayoutParams = z.input<typeof StartPayoutParamsSchema>;

export const StartPayoutFiscalizationParamsSchema = StartPayoutParamsSchema.extend({
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
});
export type StartPayoutFiscalizationParams = z.input<typeof StartPayoutFiscalizationParamsSchema>;

export const InitPaymentParamsSchema = z.looseObject({
  payment_details: PaymentDetailsParamsSchema,
  amount_details: AmountDetailsParamsSchema,
  participant_details: ParticipantDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema,
  payment_options: PaymentOptionsParamsSchema.optional(),
  metadata,
});
export type InitPaymentParams = z.input<typeof InitPaymentParamsSchema>;

/** Decision D2: start/payment is not shown; it takes what init/payment takes, all optional, plus session_id. */
export const StartPaymentParamsSchema = z.looseObject({
  session_id: sessionId,
  payment_details: PaymentDetailsParamsSchema.optional(),
  amount_details: AmountDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema.optional(),
  payment_options: PaymentOptionsParamsSchema.optional(),
  metadata,
});
export type StartPaymentParams = z.input<typeof StartPaymentParamsSchema>;

export const InitPaymentSyncParamsSchema = z.looseObject({
  payment_details: z.looseObject({
    type: z.literal('card'),
    card: z.looseObject({
      type: z.literal('bank_card'),
      bank_card: z.looseObject({
        number: cardNumber,
        expiration_month: z.string().regex(/^(0[1-9]|1[0-2])$/, 'month_mm'),
        expiration_year: z.string().regex(/^\d{2}$/, 'year_yy'),
        security_code: z.string().regex(/^\d{3,4}$/, 'digits_3_4'),
      }),
    }),
  }),
  amount_details: z.looseObject({ amount: kopecks, currency: rub }),
  customer: CustomerParamsSchema,
  payment_options: z.looseObject({ return_url: httpUrl }),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  metadata,
});
export type InitPaymentSyncParams = z.input<typeof InitPaymentSyncParamsSchema>;

export const SessionIdParamsSchema = z.looseObject({ session_id: sessionId });
export type SessionIdParams = z.input<typeof SessionIdParamsSchema>;

export const ConfirmParamsSchema = z.looseObject({
  session_id: sessionId,
  /** Fields not shown by the spec: passed through as given (decision D5). */
  confirm_information: z.record(z.string(), z.unknown()).optional(),
});
export type ConfirmParams = z.input<typeof ConfirmParamsSchema>;

export const CaptureParamsSchema = z.looseObject({
  session_id: sessionId,
  amount_details: AmountDetailsParamsSchema.optional(),
});
export type CaptureParams = z.input<typeof CaptureParamsSchema>;

export const RefundParamsSchema = z.looseObject({
  session_id: sessionId,
  amount_details: AmountDetailsParamsSchema.optional(),
  metadata,
});
export type RefundParams = z.input<typeof RefundParamsSchema>;
