/**
 * The payout as it travels from a batch file row to the bank: defined once, as zod schemas whose
 * TypeScript types are inferred from them. The CSV reader builds a PayoutRequest, the batch keeps it,
 * the payout workflow parses its input with payoutRequestSchema, and activities/payout-request.ts
 * turns it into the bank's request.
 *
 * The objects are strict: a key the schema does not know is refused, naming it, not silently dropped
 * (a new CSV column that no schema carries would otherwise compile, be dropped when the payout
 * starts, and never reach the bank). Adding a field: here first, then the CSV column
 * (src/csv/format.ts, validate.ts) and the bank request (activities/payout-request.ts);
 * test/temporal/field-end-to-end.test.ts shows the way with `citizenship`.
 *
 * Workflow-safe (see rules.ts): predicates only, no `.regex()`. And every schema is exported as a
 * function that builds it, never as an instance: this module is loaded by the workflows' contracts, a
 * preloaded module the SDK deep-freezes, and zod schemas rewrite their own `_zod.parse` on first use,
 * which throws once frozen. A schema built by the caller and kept in its own module is out of reach
 * of the freeze (test/domain/frozen.test.ts does what the SDK does and parses).
 */
import { z } from 'zod';
import { isPositiveKopecks, type Kopecks } from '../money';
import {
  CARD_DIGITS_MAX,
  CARD_DIGITS_MIN,
  chars,
  DESCRIPTION_MAX,
  FPS_DESCRIPTION_MAX,
  isAccountNumber,
  isBik,
  isCardNumber,
  isCountryAlpha3,
  isFpsBankId,
  isPhone7,
  isPlausibleEmail,
  isPayoutReference,
  isReference,
  isValidInn,
  METADATA_MAX,
  metadataChars,
  NAME_MAX,
  SERVICE_NAME_MAX,
} from './rules';
import { isIsoDate } from './pay-on';

const isString = (v: unknown): v is string => typeof v === 'string';
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** One field, one rule: whatever is wrong with the value, the message states the rule it breaks. */
export function field<T>(rule: string, test: (v: unknown) => boolean) {
  return z.custom<T>((v) => test(v), { error: rule });
}

/** An object that refuses keys it does not know. */
export const strictObject = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.strictObject(shape, { error: 'expected an object' });

export const text = (max: number, what = 'text') =>
  field<string>(`expected ${what} of at most ${max} characters`, (v) => isString(v) && chars(v) <= max);
export const nonBlank = (max: number, what = 'text') =>
  field<string>(
    `expected non-blank ${what} of at most ${max} characters`,
    (v) => isString(v) && v.trim() !== '' && chars(v) <= max,
  );
const digitString = (test: (s: string) => boolean, rule: string) =>
  field<string>(`expected ${rule}, as a string`, (v) => isString(v) && test(v));

/** A payout's reference: a file's own, or `REF~rN` for the re-payment of a returned payout (rules.ts). */
export const payoutReferenceSchema = () =>
  field<string>(
    'expected 1–64 characters of latin letters, digits and . _ : -, or such a reference followed by ~r<n>',
    (v) => isString(v) && isPayoutReference(v),
  );

export const referenceSchema = () =>
  field<string>(
    'expected 1–64 characters of latin letters, digits and . _ : -',
    (v) => isString(v) && isReference(v),
  );

/** Money: a positive whole number of kopecks (src/money.ts). */
export const kopecksSchema = () =>
  field<Kopecks>('expected a positive whole number of kopecks', isPositiveKopecks);
export const currencySchema = () => field<'rub'>('expected "rub"', (v) => v === 'rub');

/** Tax number (INN): 10 or 12 digits with the right check digits. */
export const taxReferenceSchema = () => digitString(isValidInn, '10 or 12 digits with valid check digits');

// ---------------------------------------------------------------- method

const cardMethodSchema = () =>
  strictObject({
    type: z.literal('card'),
    cardNumber: field<string>(
      `expected ${CARD_DIGITS_MIN}–${CARD_DIGITS_MAX} digits with a valid Luhn check digit, as a string`,
      (v) => isString(v) && isCardNumber(v),
    ),
  });
const bankAccountMethodSchema = () =>
  strictObject({
    type: z.literal('bank_account'),
    bik: digitString(isBik, '9 digits'),
    account: digitString(isAccountNumber, '20 digits'),
  });
const fpsMethodSchema = () =>
  strictObject({
    type: z.literal('fps'),
    phone: digitString(isPhone7, '11 digits starting with 7'),
    bankId: field<string>('expected a bank member id: 1–64 of latin letters, digits and . _ -', (v) =>
      isString(v) ? isFpsBankId(v) : false,
    ),
  });

export const payoutMethodSchema = () =>
  z.discriminatedUnion('type', [cardMethodSchema(), bankAccountMethodSchema(), fpsMethodSchema()], {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'expected card, bank_account or fps'
        : 'expected an object with type card, bank_account or fps',
  });
export type PayoutMethod = z.infer<ReturnType<typeof payoutMethodSchema>>;

// ---------------------------------------------------------------- recipient

export const recipientSchema = () =>
  strictObject({
    lastName: nonBlank(NAME_MAX),
    firstName: nonBlank(NAME_MAX),
    middleName: text(NAME_MAX).optional(),
    taxReference: taxReferenceSchema(),
    email: field<string>('expected an e-mail address', (v) => isString(v) && isPlausibleEmail(v)).optional(),
    /** ISO 3166-1 alpha-3, e.g. RUS, BLR: the bank's participant_details.recipient.citizenship_country_iso3. */
    citizenship: field<string>('expected a three-letter country code (ISO 3166-1 alpha-3, like RUS)', (v) =>
      isString(v) ? isCountryAlpha3(v) : false,
    ).optional(),
  });
export type Recipient = z.infer<ReturnType<typeof recipientSchema>>;

// ---------------------------------------------------------------- payout

export const payoutRequestSchema = () =>
  strictObject({
    /** The payout's identity: unique in the file, part of a workflow id. */
    reference: payoutReferenceSchema(),
    recipient: recipientSchema(),
    method: payoutMethodSchema(),
    amount: kopecksSchema(),
    currency: currencySchema(),
    serviceName: nonBlank(SERVICE_NAME_MAX),
    description: text(DESCRIPTION_MAX).optional(),
    metadata: field<string | Record<string, unknown>>(
      'expected text or a JSON object',
      (v) => isString(v) || isPlainObject(v),
    )
      .refine((m) => metadataChars(m) <= METADATA_MAX, {
        message: `expected at most ${METADATA_MAX} characters of metadata`,
      })
      .optional(),
    /** false = a plain payout without fiscalization. */
    selfEmployed: field<boolean>('expected true or false', (v) => typeof v === 'boolean'),
    /**
     * The Moscow day the row pays on (issue 42), YYYY-MM-DD; absent, it pays now. Never sent to the bank:
     * the payout workflow sleeps until then (workflows/payout/schedule.ts). Part of the approved row.
     */
    payOn: field<string>('expected a date as YYYY-MM-DD', (v) => isString(v) && isIsoDate(v)).optional(),
  }).superRefine((r, ctx) => {
    if (
      r.method.type === 'fps' &&
      r.description !== undefined &&
      chars(r.description) > FPS_DESCRIPTION_MAX
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['description'],
        message: `expected at most ${FPS_DESCRIPTION_MAX} characters on an FPS payout (the bank's limit)`,
      });
    }
  });
/** One payout: what a batch row becomes and what the payout workflow is started with. */
export type PayoutRequest = z.infer<ReturnType<typeof payoutRequestSchema>>;

/** Every field of a PayoutRequest and of its recipient, for tests that walk them all. */
export const PAYOUT_REQUEST_KEYS = Object.keys(payoutRequestSchema().shape) as (keyof PayoutRequest)[];
export const RECIPIENT_KEYS = Object.keys(recipientSchema().shape) as (keyof Recipient)[];
