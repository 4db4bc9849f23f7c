/**
 * The read API's answers, one zod schema each: the routes build their answers through these types, and the
 * OpenAPI document (openapi.ts) is generated from the same schemas, so the two cannot drift apart. Money is
 * integer kopecks; a card shows its first 6 and last 4 digits, an account or phone its last 4, an INN its
 * last 4: no answer carries a full number.
 */
import { z } from 'zod';

const kopecks = z.number().int().describe('integer kopecks');
const iso = z.string().describe('ISO 8601 time, UTC');

export const errorAnswer = z
  .object({
    error: z.object({
      code: z.enum(['unauthenticated', 'forbidden', 'not_found', 'bad_request', 'too_many', 'unavailable']),
      message: z.string().describe('in the console’s language'),
    }),
  })
  .strict();

const payee = z
  .object({
    method: z.enum(['card', 'bank_account', 'fps']),
    masked: z
      .string()
      .describe('card 220220******1234; account BIK and ****1234; phone ****1234 and bank id'),
  })
  .strict();

const bank = z
  .object({ sessionId: z.string(), payoutId: z.string(), receiptLink: z.string() })
  .partial()
  .strict();

const failure = z.object({ code: z.string(), reason: z.string().optional() }).strict();

export const payoutAnswer = z
  .object({
    reference: z.string(),
    /** How payrun found it: still running, paid, ended unpaid, or in doubt (asks a person). */
    found: z.enum(['running', 'paid', 'not_paid', 'needs_attention']),
    state: z.string().describe('the payout’s state (docs/payouts.md), e.g. succeeded, returned, scheduled'),
    amountKopecks: kopecks,
    currency: z.string(),
    batchId: z.string().optional(),
    payee,
    bank,
    failure: failure.optional(),
    timestamps: z.record(z.string(), iso),
  })
  .strict();

export const batchRow = z
  .object({
    row: z.number().int().describe('the row’s number in the file as the spreadsheet counts it'),
    reference: z.string(),
    amountKopecks: kopecks,
    state: z.string().describe('the row’s final state, or pending while its payout has not ended'),
    selfEmployed: z.boolean(),
    payOn: z.string().optional().describe('YYYY-MM-DD, Moscow: the row pays on that day'),
    payee,
    bank,
    failure: failure.optional(),
  })
  .strict();

export const batchAnswer = z
  .object({
    batchId: z.string(),
    fileName: z.string(),
    submittedAt: iso,
    phase: z
      .string()
      .optional()
      .describe('awaiting_approval, awaiting_funds, paying, paused, cancelling, done'),
    rows: z.number().int().describe('valid rows'),
    invalidRows: z.number().int(),
    totalKopecks: kopecks,
    counts: z.record(z.string(), z.number().int()),
    amountsKopecks: z.record(z.string(), kopecks),
    approval: z
      .object({ required: z.boolean(), needed: z.number().int(), approvedBy: z.array(z.string()) })
      .strict()
      .optional(),
    page: z
      .object({
        number: z.number().int().describe('from 1'),
        size: z.number().int(),
        total: z.number().int().describe('rows matching the filter'),
        state: z.string().optional(),
      })
      .strict(),
    items: z.array(batchRow),
  })
  .strict();

export const recipientYearAnswer = z
  .object({
    inn: z.string().describe('masked: its last 4 digits'),
    openReservations: z.number().int(),
    years: z.array(
      z
        .object({
          year: z.number().int(),
          paidKopecks: kopecks,
          reservedKopecks: kopecks,
          payouts: z.array(
            z
              .object({
                reference: z.string(),
                amountKopecks: kopecks,
                at: iso,
                state: z.enum(['paid', 'reserved', 'returned']),
              })
              .strict(),
          ),
        })
        .strict(),
    ),
  })
  .strict();

export const differencesAnswer = z
  .object({
    items: z.array(
      z
        .object({
          account: z.string().describe('masked: its last 4 digits'),
          key: z.string(),
          kind: z.string(),
          day: z.string().describe('the business day it was found on, YYYY-MM-DD'),
          reference: z.string().optional(),
          sessionId: z.string().optional(),
          payrunAmountKopecks: kopecks.optional(),
          bankAmountKopecks: kopecks.optional(),
          detail: z.string(),
          foundAt: iso,
        })
        .strict(),
    ),
  })
  .strict();

export type PayoutAnswer = z.infer<typeof payoutAnswer>;
export type BatchAnswer = z.infer<typeof batchAnswer>;
export type BatchRowAnswer = z.infer<typeof batchRow>;
export type RecipientYearAnswer = z.infer<typeof recipientYearAnswer>;
export type DifferencesAnswer = z.infer<typeof differencesAnswer>;
export type ErrorAnswer = z.infer<typeof errorAnswer>;

export const SCHEMAS = {
  Error: errorAnswer,
  Payout: payoutAnswer,
  Batch: batchAnswer,
  RecipientYear: recipientYearAnswer,
  Differences: differencesAnswer,
} as const;
