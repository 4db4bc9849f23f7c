/**
 * The passkey counters as evidence for judging decisions: a workflow's validator cannot see other files'
 * statements, so the worker hands it, with each authorization, the highest counter it has accepted per
 * passkey of the policy; and before keeping a passkey decision it claims the new counter in the batch
 * store, atomically, so one assertion (or a copy of the authenticator) counts once across every file.
 */
import { passkeyCounter } from '../../../workflows/shared/approval-proofs';
import type {
  BatchAuthorization,
  PolicyView,
  SignedStatement,
} from '../../../workflows/shared/approval-contract';
import type { BatchStore } from '../store/contract';

const passkeyIds = (policy: PolicyView) => policy.people.flatMap((p) => (p.passkeys ?? []).map((k) => k.id));

/** The authorization with the counters the store holds for the policy's passkeys (none: as it was). */
export async function withPasskeyCounters(
  store: BatchStore,
  auth: BatchAuthorization,
): Promise<BatchAuthorization> {
  const ids = passkeyIds(auth.policy);
  if (ids.length === 0) return auth;
  const counters = await store.passkeyCounters(ids);
  return Object.keys(counters).length > 0 ? { ...auth, passkeyCounters: counters } : auth;
}

/**
 * Claims a passkey decision's counter (a statement of another proof, or a counter of 0 from an
 * authenticator that keeps none, claims nothing); the reason it is refused, or undefined.
 */
export async function claimPasskeyCounter(
  store: BatchStore,
  signed: SignedStatement,
): Promise<string | undefined> {
  if (!signed.passkey) return undefined;
  const counter = passkeyCounter(signed.passkey);
  if (counter === undefined) return 'the passkey’s authenticator data is unreadable';
  if (counter === 0) return undefined;
  return (await store.advancePasskeyCounter(signed.passkey.credentialId, counter))
    ? undefined
    : `the passkey’s counter ${counter} does not move past one already accepted: a replay or a copied authenticator`;
}
