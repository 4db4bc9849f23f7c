import { z } from 'zod';
import { BankErrorBodySchema } from './common';
import { httpUrl, notBlank, phone7, taxReference } from './rules';

/** Self-employed taxpayers (npd/*) and their onboarding. */

export const NpdCheckParamsSchema = z.looseObject({ tax_reference: taxReference });
export type NpdCheckParams = z.input<typeof NpdCheckParamsSchema>;

/** One tax number per request, as the spec limits it. */
export const NpdAccountStatusParamsSchema = z.looseObject({ tax_reference: taxReference });
export type NpdAccountStatusParams = z.input<typeof NpdAccountStatusParamsSchema>;

export const NpdCheckPersonalInfoParamsSchema = z.looseObject({
  first_name: notBlank,
  /** The family name. */
  second_name: notBlank,
  patronymic: notBlank,
  tax_reference: taxReference,
  phone: phone7,
});
export type NpdCheckPersonalInfoParams = z.input<typeof NpdCheckPersonalInfoParamsSchema>;

export const NpdRequestStatusParamsSchema = z.looseObject({ request_id: notBlank });
export type NpdRequestStatusParams = z.input<typeof NpdRequestStatusParamsSchema>;

/** Answer to check, account_status and check_personal_info: status may be `pending`. */
export const NpdRequestResponseSchema = z.looseObject({ status: z.string(), request_id: z.string() });
export type NpdRequestResponse = z.infer<typeof NpdRequestResponseSchema>;

/**
 * npd/request/status answers with the fields of the request it reports on; all are optional so one
 * schema reads the three origins (and `pending`, which carries none of them).
 */
export const NpdRequestStatusResponseSchema = z.looseObject({
  status: z.string(),
  // origin: check
  is_professional_income_taxpayer: z.boolean().optional(),
  is_linked: z.boolean().optional(),
  // origin: account_status (amounts as strings, as the bank sends them)
  bonus_amount: z.string().optional(),
  unpaid_amount: z.string().optional(),
  debt_amount: z.string().optional(),
  // origin: check_personal_info
  success: z.boolean().optional(),
  violations: z.array(z.string()).optional(),
  // origin: self_employed/onboarding/create (D22): created, linked, declined, expired
  link_status: z.string().optional(),
  expires_at: z.string().optional(),
  error: BankErrorBodySchema.optional(),
});
export type NpdRequestStatusResponse = z.infer<typeof NpdRequestStatusResponseSchema>;

/** Whom to ask (D22: the spec shows only `return_url`, but a bank must know the person) and where they return. */
export const SelfEmployedOnboardingCreateParamsSchema = z.looseObject({
  tax_reference: taxReference.optional(),
  return_url: httpUrl.optional(),
});
export type SelfEmployedOnboardingCreateParams = z.input<typeof SelfEmployedOnboardingCreateParamsSchema>;

/**
 * The response is not shown (decisions D11, D22): only `status` is required; the request's id, the address
 * to pass on to the person and when the request lapses are read when present, everything else passes through.
 */
export const SelfEmployedOnboardingCreateResponseSchema = z.looseObject({
  status: z.string(),
  request_id: z.string().optional(),
  url: z.string().optional(),
  expires_at: z.string().optional(),
});
export type SelfEmployedOnboardingCreateResponse = z.infer<typeof SelfEmployedOnboardingCreateResponseSchema>;
