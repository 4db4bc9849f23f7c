import { createPublicKey, verify } from 'node:crypto';
import type { Policy } from '../policy/file';
import type { Signer } from '../policy/keys';

/** Who may close a difference: the people who prepare and approve payments (accounting), not viewers or services. */
const MAY_RESOLVE = new Set(['preparer', 'approver', 'admin']);

/**
 * The person an operator's key proves, checked against the policy file the way approvals are: the
 * signer signs this resolution, and one of the person's listed keys must verify it; a revoked person, a
 * viewer or a service is refused. The id goes into the difference's record; the name stays in the policy.
 */
export function provenResolver(policy: Policy, signer: Signer, what: string, now = new Date()): string {
  if (signer.via)
    throw new Error(`${signer.person}: resolve a difference with your own key, not through ${signer.via}`);
  const person = policy.view.people.find((p) => p.id === signer.person);
  if (!person) throw new Error(`${signer.person}: not a person in the policy file ${policy.path}`);
  if (person.revokedAt !== undefined && Date.parse(person.revokedAt) <= now.getTime())
    throw new Error(`${signer.person}: revoked in the policy file`);
  if (!person.roles.some((r) => MAY_RESOLVE.has(r)))
    throw new Error(`${signer.person}: only a preparer or an approver may resolve a difference`);
  const message = `payrun reconcile resolve\n${what}\n${now.toISOString()}`;
  const signature = Buffer.from(signer.sign(message), 'hex');
  const proven = person.keys.some((hex) => {
    try {
      const key = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') },
        format: 'jwk',
      });
      return verify(null, Buffer.from(message, 'utf8'), key, signature);
    } catch {
      return false;
    }
  });
  if (!proven)
    throw new Error(`${signer.person}: the key does not match the policy file's keys for this person`);
  return person.id;
}
