import { z } from 'zod';
import { ParticipantParamsSchema, RecurrentTokenSchema } from './common';
import { notBlank } from './rules';

/** Recurring tokens, token/info and the FPS helpers. */

export const RecurrentDisableParamsSchema = z.looseObject({ recurrent: z.looseObject({ token: notBlank }) });
export type RecurrentDisableParams = z.input<typeof RecurrentDisableParamsSchema>;

export const RecurrentDisableResponseSchema = z.looseObject({
  status: z.string(),
  recurrent: RecurrentTokenSchema.optional(),
});
export type RecurrentDisableResponse = z.infer<typeof RecurrentDisableResponseSchema>;

const tokenBlock = z.looseObject({ token: notBlank });

/** `type` names the one sub-object that must accompany it. */
export const TokenInfoParamsSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('card'),
    card: z.looseObject({
      type: z.literal('encrypted_card'),
      encrypted_card: z.looseObject({ number_hash: notBlank }),
    }),
  }),
  z.looseObject({ type: z.literal('public_token'), public_token: tokenBlock }),
  z.looseObject({ type: z.literal('recurrent_token'), recurrent_token: tokenBlock }),
  z.looseObject({ type: z.literal('bank_account_ru'), bank_account_ru: tokenBlock }),
]);
export type TokenInfoParams = z.input<typeof TokenInfoParamsSchema>;

/** One of three shapes depending on the type asked about; every field optional. */
export const TokenInfoSchema = z.looseObject({
  number_hash: z.string().optional(),
  brand: z.string().optional(),
  last4: z.string().optional(),
  type: z.string().optional(),
  token: z.string().optional(),
  masked_account: z.string().optional(),
  created_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  is_active: z.boolean().optional(),
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

export const TokenInfoResponseSchema = z.looseObject({ status: z.string(), info: TokenInfoSchema });
export type TokenInfoResponse = z.infer<typeof TokenInfoResponseSchema>;

export const FpsBankSchema = z.looseObject({
  id: z.string(),
  eng_name: z.string().optional(),
  ru_name: z.string().optional(),
});
export type FpsBank = z.infer<typeof FpsBankSchema>;

/**
 * `{banks: [...]}` as the spec shows; decision D1 also accepts the list bare, or inside the
 * common envelope's `data`, and always hands the caller `{status, banks}`.
 */
export const FpsBanksResponseSchema = z.preprocess(
  (raw) => {
    if (Array.isArray(raw)) return { status: 'ok', banks: raw };
    if (raw && typeof raw === 'object') {
      const r = raw as Record<string, unknown>;
      const data = r.data as Record<string, unknown> | undefined;
      const banks = r.banks ?? (Array.isArray(data) ? data : data?.banks);
      return { ...r, status: typeof r.status === 'string' ? r.status : 'ok', banks };
    }
    return raw;
  },
  z.looseObject({ status: z.string(), banks: z.array(FpsBankSchema) }),
);
export type FpsBanksResponse = z.infer<typeof FpsBanksResponseSchema>;

export const CustomerVerificationParamsSchema = z.looseObject({
  payment_method: z.looseObject({
    type: z.literal('bank_account'),
    bank_account: z.looseObject({
      system_type: z.literal('faster_payment_system_verification'),
      faster_payment_system_verification: z.looseObject({ phone: notBlank, bank_id: notBlank }),
    }),
  }),
  participant_details: z.looseObject({
    // Decision D12: middle_name is optional: not everyone has a patronymic.
    recipient: ParticipantParamsSchema.extend({ first_name: notBlank, last_name: notBlank }),
  }),
});
export type CustomerVerificationParams = z.input<typeof CustomerVerificationParamsSchema>;
