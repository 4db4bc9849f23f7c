import { z } from 'zod';
import { isPayoutWorkflowId, isReference } from '../../src/domain/rules';
import type { RequestLinkInput, ReserveRequest } from './contract';

// The recipient workflow's Update input, checked before it reaches history (workflow-safe, pure).

const kopecks = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const limit = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional();

const reserveRequest = z.strictObject({
  reference: z.string().refine(isReference, 'expected a payout reference'),
  workflowId: z.string().refine(isPayoutWorkflowId, 'expected a payout workflow id'),
  // A Temporal run id (a UUID, which the server's describe takes); absent, refused as unproven.
  runId: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'expected a run id')
    .optional(),
  amount: kopecks,
  selfEmployed: z.boolean(),
  // Recorded before reservations were proven; taken no longer (the ledger dates and limits it itself).
  at: z.string().datetime({ message: 'expected an ISO 8601 time' }).optional(),
  limits: z
    .strictObject({
      yearlyCapKopecks: limit,
      knownIncomeKopecks: limit,
      perPayoutKopecks: limit,
      perMonthKopecks: limit,
    })
    .optional(),
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
