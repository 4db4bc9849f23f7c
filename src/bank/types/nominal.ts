import { z } from 'zod';
import {
  AmountDetailsParamsSchema,
  CustomerParamsSchema,
  FiscalizationDetailsParamsSchema,
  ParticipantDetailsParamsSchema,
  ParticipantParamsSchema,
  PaymentDetailsParamsSchema,
  PaymentMethodParamsSchema,
  PaymentOptionsParamsSchema,
} from './common';
import { currency, kopecks, notBlank, rub } from './rules';

/** Nominal-account (escrow) payouts and multi-currency transfers: requests. Responses are sessions. */

const metadata = z.unknown().optional();

export const NominalCreateParamsSchema = z.looseObject({
  payment_method: PaymentMethodParamsSchema.optional(),
  amount_details: AmountDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  metadata,
});
export type NominalCreateParams = z.input<typeof NominalCreateParamsSchema>;

export const NominalInitPayoutParamsSchema = z.looseObject({
  payment_method: PaymentMethodParamsSchema,
  amount_details: AmountDetailsParamsSchema,
  participant_details: z.looseObject({
    sender: ParticipantParamsSchema.extend({ account: notBlank }),
    recipient: ParticipantParamsSchema.extend({ beneficiary_id: notBlank }),
  }),
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  metadata,
});
export type NominalInitPayoutParams = z.input<typeof NominalInitPayoutParamsSchema>;

export const MultiCreateNominalParamsSchema = z.looseObject({
  payment_details: PaymentDetailsParamsSchema.optional(),
  payment_method: PaymentMethodParamsSchema.optional(),
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  participant_details: ParticipantDetailsParamsSchema.optional(),
  amount_details: AmountDetailsParamsSchema.optional(),
  customer: CustomerParamsSchema.optional(),
  metadata,
});
export type MultiCreateNominalParams = z.input<typeof MultiCreateNominalParamsSchema>;

export const MultiInitPaymentNominalParamsSchema = z.looseObject({
  payment_details: PaymentDetailsParamsSchema,
  payment_method: PaymentMethodParamsSchema,
  participant_details: ParticipantDetailsParamsSchema,
  amount_details: AmountDetailsParamsSchema,
  customer: CustomerParamsSchema,
  fiscalization_details: FiscalizationDetailsParamsSchema.optional(),
  metadata,
});
export type MultiInitPaymentNominalParams = z.input<typeof MultiInitPaymentNominalParamsSchema>;

export const MultiStartPaymentNominalParamsSchema = MultiCreateNominalParamsSchema.extend({
  session_id: notBlank,
});
export type MultiStartPaymentNominalParams = z.input<typeof MultiStartPaymentNominalParamsSchema>;

/**
 * A rate is not money, but still never goes through float arithmetic: it is sent exactly as the
 * caller gave it (number or decimal string) after checking it has at most 4 decimals (decision D10).
 */
const rate = z
  .union([z.number().positive('positive'), z.string()])
  .refine((r) => /^\d+(\.\d{1,4})?$/.test(String(r)) && /[1-9]/.test(String(r)), 'decimal_max_4_places');

const rateBlock = z.looseObject({ rate, from_currency: rub, to_currency: currency });

export const MultiInitParamsSchema = z.looseObject({
  payment_options: PaymentOptionsParamsSchema.optional(),
  payment_details_multi: z.array(PaymentDetailsParamsSchema).min(1, 'at_least_one'),
  payout_details_multi: z
    .array(PaymentMethodParamsSchema.and(z.looseObject({ country: z.string().optional() })))
    .optional(),
  amount_details: AmountDetailsParamsSchema,
  amounts: z.looseObject({
    source: z.looseObject({ amount: kopecks, currency: rub }),
    rate: rateBlock,
    provider_rate: rateBlock.optional(),
  }),
  participant_details: ParticipantDetailsParamsSchema,
  payment_metadata: z.looseObject({ provider_tx_id: notBlank }),
  customer: CustomerParamsSchema.optional(),
});
export type MultiInitParams = z.input<typeof MultiInitParamsSchema>;
