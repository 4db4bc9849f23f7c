import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { z } from 'zod';
import type { createReconciliationActivities } from '../../activities/reconciliation';
import type { DifferenceStatement, SignedStatement } from '../shared/approval-contract';
import type { ResolvedDifference } from './contract';
import { RECONCILIATION_STORE } from '../shared/activity-options';

type Acts = ReturnType<typeof createReconciliationActivities>;
// The store until it answers; a refusal is a non-retryable failure, final at once.
const { resolveSignedDifference } = proxyActivities<Acts>(RECONCILIATION_STORE);

const differenceStatement = z.strictObject({
  v: z.literal(1),
  kind: z.literal('difference'),
  decision: z.literal('resolve'),
  account: z.string().refine((a) => /^\d{20}$/.test(a), 'expected a 20-digit account'),
  key: z.string().min(3).max(200),
  reason: z.string().refine((r) => r.trim().length > 0 && r.length <= 500, 'a reason, 1–500 characters'),
  person: z.string().min(1).max(64),
  at: z.string().refine((a) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(a), 'a UTC time'),
  via: z.string().min(1).max(64).optional(),
});
const signedDifference = z.strictObject({
  statement: differenceStatement,
  signature: z.string().refine((s) => /^[0-9a-f]{128}$/.test(s), 'an Ed25519 signature: 128 hex digits'),
});

/** A signed resolution, or why the input is not one (its signature and signer are the worker's to judge). */
export function parseDifferenceResolution(
  raw: unknown,
): { ok: true; value: SignedStatement<DifferenceStatement> } | { ok: false; reason: string } {
  const r = signedDifference.safeParse(raw);
  if (r.success) return { ok: true, value: r.data as SignedStatement<DifferenceStatement> };
  const issue = r.error.issues[0]!;
  return { ok: false, reason: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}

/**
 * An operator's signed resolution of a reconciliation difference, judged by the worker under the
 * worker's policy file and recorded with its evidence (the signed statement, the policy's version) —
 * the command line that sends it decides nothing. The statement is the input, so the history keeps it too.
 */
export async function resolveDifferenceWorkflow(raw: unknown): Promise<ResolvedDifference> {
  const parsed = parseDifferenceResolution(raw);
  if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.reason, 'invalid_input');
  return resolveSignedDifference(parsed.value);
}
