import { z } from 'zod';
import { adultBirthday, countryAlpha2, ddmmyyyy, digits, email, notBlank, phone7 } from './rules';

/** Electronic wallets (paths without /api/v{n}); answers are `{status, data, error}`. */

export const WalletIdSchema = z.string().regex(/^[A-Za-z0-9_:-]{1,128}$/, 'wallet_id_characters');

export const CreateAnonymousWalletParamsSchema = z.looseObject({ phone_number: phone7, email });
export type CreateAnonymousWalletParams = z.input<typeof CreateAnonymousWalletParamsSchema>;

const passport = {
  series: digits(4),
  number: digits(6),
  issuer: notBlank,
  issuer_date: ddmmyyyy,
  issuer_code: notBlank,
};

export const CreateSimplifiedWalletParamsSchema = z.looseObject({
  residence_type: z.literal('FL_RESIDENT', 'must_be_FL_RESIDENT'),
  first_name: notBlank,
  last_name: notBlank,
  patronymic: z.string().optional(),
  birthday: adultBirthday,
  birthplace: notBlank,
  citizenship: countryAlpha2,
  inn: digits(12),
  phone_number: phone7,
  email,
  documents: z
    .array(z.looseObject({ type: z.literal('PASSPORT_RF', 'must_be_PASSPORT_RF'), ...passport }))
    .min(1, 'at_least_one_document'),
});
export type CreateSimplifiedWalletParams = z.input<typeof CreateSimplifiedWalletParamsSchema>;

export const UpToSimplifiedParamsSchema = z.looseObject({
  inn: digits(12),
  personal_info: z.looseObject({
    first_name: notBlank,
    last_name: notBlank,
    middle_name: z.string().optional(),
    birthday: adultBirthday,
    birthplace: notBlank,
    citizenship: countryAlpha2,
  }),
  passport: z.looseObject(passport),
});
export type UpToSimplifiedParams = z.input<typeof UpToSimplifiedParamsSchema>;

/** Queued request: `data: {request_id, description}`. */
export const WalletRequestResponseSchema = z.looseObject({
  status: z.string(),
  data: z.looseObject({ request_id: z.string(), description: z.string().optional() }),
});
export type WalletRequestResponse = z.infer<typeof WalletRequestResponseSchema>;

/**
 * Decision D4: the balance is "a number in kopecks"; we insist on an integer (a fractional
 * kopeck would be a bank error) and also accept it as a digit string, converted exactly.
 */
const kopeckBalance = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform((s) => Number(s))
    .pipe(z.number().int()),
]);

export const WalletBalanceDataSchema = z.looseObject({
  wallet_id: z.string(),
  balance: kopeckBalance,
  currency: z.string(),
});
export const WalletAccountBalanceResponseSchema = z.looseObject({
  status: z.string(),
  data: WalletBalanceDataSchema,
});
export type WalletAccountBalanceResponse = z.infer<typeof WalletAccountBalanceResponseSchema>;
