import { checkStatement } from '../../workflows/shared/approval';
import type { DifferenceStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import type { ResolvedDifference } from '../../workflows/reconciliation/contract';
import type { Policy } from '../policy/file';
import { resolveDifference } from './day';
import type { ReconcileStore } from './store';

/** A resolution is a decision made now: a statement older than this is refused (a copy replayed later). */
export const RESOLUTION_MAX_AGE_MS = 15 * 60_000;

export class ResolutionRefused extends Error {}

/**
 * The worker's judgement of a signed resolution, under the worker's own policy file: the signer is a
 * person of it, not revoked, who prepares or approves payments, signed with their own key (not through
 * a service), recently; then the difference, still open, is closed with the evidence kept beside it.
 */
export async function judgeAndResolve(
  store: ReconcileStore,
  policy: Policy,
  signed: SignedStatement<DifferenceStatement>,
  now = new Date(),
): Promise<ResolvedDifference> {
  const s = signed.statement;
  if (s.via !== undefined)
    throw new ResolutionRefused(`${s.person}: resolve a difference with your own key, not through ${s.via}`);
  const checked = checkStatement(policy.view, signed, now.getTime());
  if (!checked.ok)
    throw new ResolutionRefused(`${checked.reason} (the worker's policy ${policy.view.version})`);
  const age = now.getTime() - Date.parse(s.at);
  if (age > RESOLUTION_MAX_AGE_MS)
    throw new ResolutionRefused(
      `the statement was signed at ${s.at}, more than 15 minutes ago: sign it again`,
    );
  let record;
  try {
    record = await resolveDifference(store, s.account, s.key, {
      person: checked.value.id,
      reason: s.reason,
      at: now,
      evidence: { statement: signed, policyVersion: policy.view.version },
    });
  } catch (err) {
    throw new ResolutionRefused((err as Error).message);
  }
  return {
    account: s.account,
    key: record.key,
    by: record.resolved!.by,
    reason: record.resolved!.reason,
    at: record.resolved!.at,
    policyVersion: policy.view.version,
  };
}
