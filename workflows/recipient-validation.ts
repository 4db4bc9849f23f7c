import { z } from 'zod';
import type { ReserveRequest } from './contracts/recipient';

// The recipient workflow's Update input, checked before it reaches history (workflow-safe, pure).

const kopecks = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const limit = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional();

const reserveRequest = z.strictObject({
  reference: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'expected a payout reference'),
  workflowId: z.string().regex(/^payout-[A-Za-z0-9._:-]{1,64}$/, 'expected a payout workflow id'),
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

export function parseReserveRequest(
  raw: unknown,
): { ok: true; value: ReserveRequest } | { ok: false; message: string } {
  const r = reserveRequest.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, message: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}
