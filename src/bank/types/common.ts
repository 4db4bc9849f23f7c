import { z } from 'zod';
import {
  countryAlpha3,
  currency,
  digits,
  email,
  accountNumber,
  bik,
  cardNumber,
  fpsDescription,
  inn,
  httpUrl,
  isoDate,
  kopecks,
  notBlank,
  taxReference,
} from './rules';

/**
 * Objects shared by many methods. Each has a request schema (`…ParamsSchema`: the spec's rules,
 * checked before sending) and a response schema (loose: unknown fields pass through to the caller,
 * since "the field set may grow over time").
 */

// ---- AmountDetails, amounts ----

export const AmountDetailsParamsSchema = z.looseObject({ amount: kopecks, currency });
export type AmountDetailsParams = z.input<typeof AmountDetailsParamsSchema>;

export const AmountDetailsSchema = z.looseObject({ amount: z.number().int(), currency: z.string() });
export type AmountDetails = z.infer<typeof AmountDetailsSchema>;

export const AmountsSchema = z.looseObject({
  gross: AmountDetailsSchema.optional(),
  net: AmountDetailsSchema.optional(),
  fee: z.looseObject({ merchant_fee: AmountDetailsSchema.optional() }).optional(),
});
export type Amounts = z.infer<typeof AmountsSchema>;

// ---- Customer ----

export const CustomerParamsSchema = z.looseObject({
  reference: notBlank.max(128, 'max_length_128'),
  contacts: z.array(z.looseObject({ email: email.optional() })).optional(),
});
export type CustomerParams = z.input<typeof CustomerParamsSchema>;

export const CustomerSchema = z.looseObject({
  reference: z.string().optional(),
  contacts: z.array(z.looseObject({ email: z.string().optional() })).optional(),
});
export type Customer = z.infer<typeof CustomerSchema>;

// ---- ParticipantDetails ----

const participantFields = {
  full_name: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  middle_name: z.string().optional(),
  reference: z.string().optional(),
  beneficiary_id: z.string().optional(),
  account: z.string().optional(),
  wallet_id: z.string().optional(),
  state: z.string().optional(),
  city: z.string().optional(),
  street: z.string().optional(),
  building: z.string().optional(),
  flat: z.string().optional(),
  postal_code: z.string().optional(),
  identity_document: z.record(z.string(), z.unknown()).optional(),
  source_of_money: z.string().optional(),
  description: z.string().optional(),
  address: z.record(z.string(), z.unknown()).optional(),
};

export const ParticipantParamsSchema = z.looseObject({
  ...participantFields,
  citizenship_country_iso3: countryAlpha3.optional(),
  country_iso3: countryAlpha3.optional(),
  date_of_birth: isoDate.optional(),
  contacts: z
    .looseObject({ phone: z.record(z.string(), z.unknown()).optional(), email: email.optional() })
    .optional(),
});
export const ParticipantDetailsParamsSchema = z.looseObject({
  sender: ParticipantParamsSchema.optional(),
  recipient: ParticipantParamsSchema.optional(),
});
export type ParticipantDetailsParams = z.input<typeof ParticipantDetailsParamsSchema>;

const ParticipantSchema = z.looseObject({
  ...participantFields,
  citizenship_country_iso3: z.string().optional(),
  country_iso3: z.string().optional(),
  date_of_birth: z.string().optional(),
  contacts: z.record(z.string(), z.unknown()).optional(),
});
export const ParticipantDetailsSchema = z.looseObject({
  sender: ParticipantSchema.optional(),
  recipient: ParticipantSchema.optional(),
});
export type ParticipantDetails = z.infer<typeof ParticipantDetailsSchema>;

// ---- Payment-method blocks (payment_method / payout_details / payment_details) ----

const bankCard = z.looseObject({
  number: cardNumber,
  expiration_month: z
    .string()
    .regex(/^(0[1-9]|1[0-2])$/, 'month_mm')
    .optional(),
  expiration_year: z
    .string()
    .regex(/^\d{2}$/, 'year_yy')
    .optional(),
  security_code: z
    .string()
    .regex(/^\d{3,4}$/, 'digits_3_4')
    .optional(),
});

export const CardBlockSchema = z.looseObject({
  type: z.literal('card'),
  card: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('bank_card'), bank_card: bankCard }),
    z.looseObject({
      type: z.literal('encrypted_card'),
      encrypted_card: z.looseObject({ number_hash: notBlank }),
    }),
    // Decision D6: where a recurring token goes is not shown; it takes the card's place, named as
    // token/info names it.
    z.looseObject({
      type: z.literal('recurrent_token'),
      recurrent_token: z.looseObject({ token: notBlank }),
    }),
  ]),
});

const fpsTarget = z.looseObject({
  phone: notBlank,
  bank_id: notBlank,
  description: fpsDescription.optional(),
});

/**
 * The `bank_account` block. On the receiving side (a payout: `payment_method` / `payout_details`)
 * the spec's withdrawal rules require `ru` {bik, account, full_name, description} and
 * `faster_payment_system` {phone, bank_id, description ≤ 140}; the bank refuses a payout without
 * them (`payment_method.bank_account.ru.full_name: not_blank`), so the client refuses first.
 */
function bankAccountBlock(side: 'payout' | 'payment') {
  const payout = side === 'payout';
  return z.looseObject({
    type: z.literal('bank_account'),
    bank_account: z.discriminatedUnion('system_type', [
      z.looseObject({
        system_type: z.literal('ru'),
        ru: z.looseObject({
          bik,
          account: accountNumber,
          full_name: payout ? notBlank : z.string().optional(),
          description: payout ? notBlank : z.string().optional(),
          inn: inn.optional(),
          kpp: digits(9).optional(),
          is_fast: z.boolean().optional(),
        }),
      }),
      z.looseObject({
        system_type: z.literal('faster_payment_system'),
        faster_payment_system: payout
          ? fpsTarget.extend({ description: notBlank.and(fpsDescription) })
          : fpsTarget,
      }),
      z.looseObject({
        system_type: z.literal('faster_payment_system_verification'),
        faster_payment_system_verification: z.looseObject({ phone: notBlank, bank_id: notBlank }),
      }),
    ]),
  });
}

/** Receiving side: every field a payout needs (see bankAccountBlock). */
export const PayoutBankAccountBlockSchema = bankAccountBlock('payout');
/** Taking side (`payment_details`): the spec lists these fields without saying which are required. */
export const BankAccountBlockSchema = bankAccountBlock('payment');

export const FpsBlockSchema = z.looseObject({
  type: z.literal('faster_payment_system'),
  faster_payment_system: fpsTarget,
});

export const InternalTransferBlockSchema = z.looseObject({
  type: z.literal('internal_transfer'),
  internal_transfer: z.looseObject({
    type: z.literal('transfer_from_nominal_account'),
    transfer_from_nominal_account: z.looseObject({ description: z.string().optional() }),
  }),
});

export const TaxBlockSchema = z.looseObject({
  type: z.literal('tax'),
  tax: z.looseObject({ type: z.literal('tax_short'), tax_short: z.record(z.string(), z.unknown()) }),
});

/** Receiving side: `payment_method` (v1) / `payout_details` (v2). */
export const PaymentMethodParamsSchema = z.discriminatedUnion('type', [
  CardBlockSchema,
  PayoutBankAccountBlockSchema,
  FpsBlockSchema,
  TaxBlockSchema,
]);
export type PaymentMethodParams = z.input<typeof PaymentMethodParamsSchema>;

/** Taking side: `payment_details`. */
export const PaymentDetailsParamsSchema = z.discriminatedUnion('type', [
  CardBlockSchema,
  FpsBlockSchema,
  BankAccountBlockSchema,
  InternalTransferBlockSchema,
]);
export type PaymentDetailsParams = z.input<typeof PaymentDetailsParamsSchema>;

/** In responses the bank masks data and adds fields (brand, last4, card_mask…): read loosely. */
export const PaymentMethodSchema = z.looseObject({ type: z.string() });
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

// ---- Fiscalization ----

export const FiscalizationDetailsParamsSchema = z.looseObject({
  professional_income_taxpayer: z.looseObject({
    tax_reference: taxReference,
    payer_type: z.string().optional(),
    payer_tax_number: z.string().optional(),
    payer_name: z.string().optional(),
    services: z
      .array(
        z.looseObject({
          name: notBlank,
          amount_details: AmountDetailsParamsSchema,
          quantity: z.number().int().positive('positive_integer'),
        }),
      )
      .min(1, 'at_least_one_service')
      .optional(),
  }),
});
export type FiscalizationDetailsParams = z.input<typeof FiscalizationDetailsParamsSchema>;

export const FiscalizationDetailsSchema = z.looseObject({
  professional_income_taxpayer: z
    .looseObject({
      tax_reference: z.string().optional(),
      receipt: z.looseObject({ id: z.string().optional(), link: z.string().optional() }).optional(),
    })
    .optional(),
});
export type FiscalizationDetails = z.infer<typeof FiscalizationDetailsSchema>;

// ---- payment_options, recurrent token, transaction_info, error ----

export const PaymentOptionsParamsSchema = z.looseObject({
  return_url: httpUrl.optional(),
  recurrent: z.boolean().optional(),
});
export type PaymentOptionsParams = z.input<typeof PaymentOptionsParamsSchema>;

export const RecurrentTokenSchema = z.looseObject({
  token: z.string().optional(),
  created_at: z.string().optional(),
  /** Not checked by the bank; may show a year-2000 date after disabling. Ignore it. */
  finished_at: z.string().nullish(),
  is_active: z.boolean().optional(),
  type: z.string().optional(),
});
export type RecurrentToken = z.infer<typeof RecurrentTokenSchema>;

export const TransactionInfoSchema = z.looseObject({
  rrn: z.string().optional(),
  auth_code: z.string().optional(),
});
export type TransactionInfo = z.infer<typeof TransactionInfoSchema>;

export const BankErrorBodySchema = z.looseObject({ code: z.string(), description: z.string().optional() });
export type BankErrorBody = z.infer<typeof BankErrorBodySchema>;

/** metadata: any JSON value, never interpreted. */
export const MetadataSchema = z.unknown();
