/**
 * How a statement is proven, and which proofs count: a person's own Ed25519 key (`cli-key`), their
 * passkey in a browser (`passkey`, a WebAuthn assertion over SHA-256 of the statement), or the console's
 * key signing for the person it signed in (`console-session`). The policy says, per act, which count; by
 * default approving and rejecting need the person's own key or passkey, so a console host alone can
 * approve nothing. Pure and deterministic: workflows/shared/approval.ts calls it from Update validators too.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { hexToBytes, utf8ToBytes } from '@noble/curves/abstract/utils';
import { sha256 } from '@noble/hashes/sha2';
import { z } from 'zod';
import {
  statementMessage,
  type PasskeyProof,
  type PolicyPerson,
  type PolicyView,
  type Proof,
  type ProvenAct,
  type SignedStatement,
  type Statement,
} from './approval-contract';
import { fromBase64url, verifyPasskeyAssertion } from './webauthn';

export const PROOFS = ['cli-key', 'passkey', 'console-session'] as const satisfies readonly Proof[];

/** What counts when the policy says nothing: submitting through the console is a preparer's act; deciding is not. */
export const DEFAULT_PROOFS: Record<ProvenAct, readonly Proof[]> = {
  submit: ['cli-key', 'passkey', 'console-session'],
  approve: ['cli-key', 'passkey'],
  reject: ['cli-key', 'passkey'],
  payout: ['cli-key', 'passkey'],
  resolve: ['cli-key', 'passkey'],
};

const b64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'expected base64url');

/** A passkey's answer as a statement carries it; sizes bound what a validator will hash. */
/**
 * A builder, not a schema: the SDK deep-freezes what a preloaded workflow module exports, and zod rewrites
 * a schema's \`parse\` on first use, so an exported schema throws "Cannot assign to read only property".
 */
export const passkeyProofSchema = () =>
  z.strictObject({
    credentialId: b64url(1400),
    authenticatorData: b64url(4096),
    clientDataJSON: b64url(4096),
    signature: b64url(200),
  });

/**
 * A statement with exactly one proof, an Ed25519 signature or a passkey's answer, as the contracts whose
 * statements are not a batch's or a payout's take it (a reconciliation resolution, a recurring template).
 * A builder, for the reason above.
 */
export const signedStatementSchema = <S extends z.ZodType>(statement: S) =>
  z
    .strictObject({
      statement,
      signature: z
        .string()
        .refine((s) => /^[0-9a-f]{128}$/.test(s), 'an Ed25519 signature: 128 hex digits')
        .optional(),
      passkey: passkeyProofSchema().optional(),
    })
    .refine((x) => (x.signature === undefined) !== (x.passkey === undefined), {
      message: 'expected exactly one proof: an Ed25519 signature or a passkey’s answer',
    });

export const proofOf = (signed: SignedStatement): Proof =>
  signed.passkey ? 'passkey' : signed.statement.via !== undefined ? 'console-session' : 'cli-key';

export const proofsFor = (policy: PolicyView, act: ProvenAct): readonly Proof[] =>
  policy.proofs?.[act] ?? DEFAULT_PROOFS[act];

/** The challenge a passkey must answer for this statement: SHA-256 of its canonical text. */
export const statementChallenge = (statement: Statement): Uint8Array =>
  sha256(utf8ToBytes(statementMessage(statement)));

/** The signature counter an assertion carries (bytes 33–36 of authenticatorData), or undefined if unreadable. */
export function passkeyCounter(proof: PasskeyProof): number | undefined {
  const data = fromBase64url(proof.authenticatorData);
  if (!data || data.length < 37) return undefined;
  return ((data[33]! << 24) >>> 0) + (data[34]! << 16) + (data[35]! << 8) + data[36]!;
}

function ed25519Verifies(signed: SignedStatement, keys: string[]): boolean {
  if (!signed.signature) return false;
  const message = utf8ToBytes(statementMessage(signed.statement));
  const signature = hexToBytes(signed.signature);
  return keys.some((k) => {
    try {
      return ed25519.verify(signature, message, hexToBytes(k));
    } catch {
      return false; // a malformed key in the policy verifies nothing
    }
  });
}

export type ProofCheck = { ok: true; proof: Proof; counter?: number } | { ok: false; reason: string };

/**
 * Whether `signed` is proven the way the policy accepts for `act`, by `signer` (the person, or the
 * authenticating service for a `via` statement). `lastCounters`: the highest counter accepted so far per
 * passkey, when the caller knows them (the worker, and validators through the batch's authorization).
 */
export function checkProof(
  policy: PolicyView,
  signed: SignedStatement,
  signer: PolicyPerson,
  act: ProvenAct,
  lastCounters?: Record<string, number>,
): ProofCheck {
  const refuse = (reason: string): ProofCheck => ({ ok: false, reason });
  if (!!signed.signature === !!signed.passkey)
    return refuse('a statement carries exactly one proof: a key’s signature or a passkey’s answer');
  const proof = proofOf(signed);
  const allowed = proofsFor(policy, act);
  if (!allowed.includes(proof))
    return refuse(
      proof === 'console-session'
        ? `signed by the console’s key alone (${signed.statement.via}): to ${act}, the policy counts only ${allowed.join(' or ')}`
        : `proven by ${proof}: to ${act}, the policy counts only ${allowed.join(' or ') || 'nothing'}`,
    );
  if (!signed.passkey) {
    if (!ed25519Verifies(signed, signer.keys))
      return refuse(`the signature is not ${signer.id}’s (no key of theirs in the policy verifies it)`);
    return { ok: true, proof };
  }
  if (signed.statement.via !== undefined) return refuse('a passkey proves its person, never a service');
  const rp = policy.webauthn;
  if (!rp) return refuse('the policy names no console (webauthn: rp_id, origin) for passkeys');
  const listed = signer.passkeys?.find((p) => p.id === signed.passkey!.credentialId);
  const publicKey = listed ? fromBase64url(listed.publicKey) : undefined;
  if (!listed || !publicKey) return refuse(`this passkey is not one of ${signer.id}’s in the policy`);
  const lastCounter = lastCounters?.[listed.id];
  const checked = verifyPasskeyAssertion(
    signed.passkey,
    { id: listed.id, alg: listed.alg, publicKey },
    {
      challenge: statementChallenge(signed.statement),
      origin: rp.origin,
      rpId: rp.rpId,
      ...(lastCounter !== undefined ? { lastCounter } : {}),
    },
  );
  if (!checked.ok) return refuse(`${signer.id}’s passkey: ${checked.reason}`);
  return { ok: true, proof, counter: checked.counter };
}
