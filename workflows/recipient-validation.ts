import { z } from 'zod';
import { isPayoutWorkflowId, isReference } from '../src/domain/rules';
import type { RequestLinkInput, ReserveRequest } from './contracts/recipient';

// The recipient workflow's Update input, checked before it reaches history (workflow-safe, pure).

const kopecks = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const limit = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional();

const reserveRequest = z.strictObject({
  reference: z.string().refine(isReference, 'expected a payout reference'),
  workflowId: z.string().refine(isPayoutWorkflowId, 'expected a payout workflow id'),
  amount: kopecks,
  selfEmployed: z.boolean(),
  at: z.string().datetime({ message: 'expected an ISO 8601 time' }),
  limits: z.strictObject({
    yearlyCapKopecks: limit,
    knownIncomeKopecks: limit,
    perPayoutKopecks: limit,
    perMonthKopecks: limit,
  }),
});

const requestLink = z.strictObject({
  taxReference: z.string().regex(/^\d{12}$/, 'expected a self-employed person’s tax number (12 digits)'),
  returnUrl: z
    .string()
    .max(2_000)
    .regex(/^https?:\/\/[^\s]+$/, 'expected an http(s) address')
    .optional(),
  again: z.boolean().optional(),
  requestedBy: z.string().min(1).max(128),
});

export function parseRequestLink(
  raw: unknown,
): { ok: true; value: RequestLinkInput } | { ok: false; message: string } {
  return firstIssue(requestLink.safeParse(raw));
}

export function parseReserveRequest(
  raw: unknown,
): { ok: true; value: ReserveRequest } | { ok: false; message: string } {
  return firstIssue(reserveRequest.safeParse(raw));
}

function firstIssue<T>(r: z.ZodSafeParseResult<T>): { ok: true; value: T } | { ok: false; message: string } {
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, message: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}
