/**
 * Passkeys in the policy file: a person's `passkey:<alg>:<credential id>:<public key>` lines among their
 * keys (the console's registration page prints one; `payrun people add-passkey` adds it), the console's
 * relying party (`webauthn: {rp_id, origin}`: the worker, not the console, decides which site counts),
 * and which proofs count for each act (`proofs:`). The policy file stays the one root of trust.
 */
import { z } from 'zod';
import type { PolicyPasskey, PolicyView } from '../../workflows/shared/approval-contract';
import { PROOFS } from '../../workflows/shared/approval-proofs';
import {
  fromBase64url,
  rawKeyFromSpki,
  toBase64url,
  type PasskeyAlgorithm,
} from '../../workflows/shared/webauthn';

const RAW_LENGTH: Record<PasskeyAlgorithm, number> = { es256: 65, eddsa: 32 };
const LINE = /^passkey:(es256|eddsa):([A-Za-z0-9_-]{16,1400}):([A-Za-z0-9_-]{40,200})$/;

/** A `passkey:…` line's credential (the key raw, whether the line held it raw or as SPKI), or undefined. */
export function parsePasskeyLine(line: string): PolicyPasskey | undefined {
  const m = LINE.exec(line.trim());
  if (!m) return undefined;
  const alg = m[1] as PasskeyAlgorithm;
  const bytes = fromBase64url(m[3]!);
  if (!bytes || !fromBase64url(m[2]!)) return undefined;
  const raw = bytes.length === RAW_LENGTH[alg] ? bytes : rawKeyFromSpki(alg, bytes);
  if (!raw || (alg === 'es256' && raw[0] !== 0x04)) return undefined;
  return { id: m[2]!, alg, publicKey: toBase64url(raw) };
}

export const passkeyLine = (p: PolicyPasskey): string => `passkey:${p.alg}:${p.id}:${p.publicKey}`;

export const isPasskeyLine = (line: string) => line.startsWith('passkey:');

/** A key entry of the policy: `ed25519:<64 hex>` or a passkey line. */
export const keyEntry = z
  .string()
  .refine(
    (k) => /^ed25519:[0-9a-f]{64}$/.test(k) || parsePasskeyLine(k) !== undefined,
    'expected ed25519:<64 hex digits> (payrun keys generate prints it) or passkey:es256|eddsa:<credential id>:<public key> (the console’s passkey page prints it)',
  );

export const webauthnBlock = z
  .strictObject({
    rp_id: z
      .string()
      .regex(/^[a-z0-9.-]{1,253}$/, 'expected the console’s host name, like payrun.example.ru'),
    origin: z.string().regex(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/, 'expected the console’s origin'),
  })
  .refine(
    (w) => new URL(w.origin).hostname === w.rp_id || new URL(w.origin).hostname.endsWith(`.${w.rp_id}`),
    {
      message: 'expected rp_id to be the origin’s host name or a domain it belongs to',
    },
  )
  .refine((w) => w.origin.startsWith('https://') || new URL(w.origin).hostname === 'localhost', {
    message: 'expected an https:// origin (http:// only for localhost)',
  });

const proofList = z.array(z.enum(PROOFS, { error: `expected proofs among ${PROOFS.join(', ')}` }));

export const proofsBlock = z.strictObject({
  submit: proofList.optional(),
  approve: proofList.optional(),
  reject: proofList.optional(),
  payout: proofList.optional(),
  resolve: proofList.optional(),
});

/** The view's passkey parts from the file's blocks (absent when the file has none). */
export function passkeyView(
  webauthn: z.infer<typeof webauthnBlock> | undefined,
  proofs: z.infer<typeof proofsBlock> | undefined,
): Pick<PolicyView, 'webauthn' | 'proofs'> {
  const given = proofs
    ? Object.fromEntries(Object.entries(proofs).filter(([, v]) => v !== undefined))
    : undefined;
  return {
    ...(webauthn ? { webauthn: { rpId: webauthn.rp_id, origin: webauthn.origin } } : {}),
    ...(given && Object.keys(given).length > 0 ? { proofs: given } : {}),
  };
}

/** A person's keys split: Ed25519 hex for statements, passkeys for the browser. */
export function splitKeys(keys: string[]): { ed25519: string[]; passkeys: PolicyPasskey[] } {
  const ed25519 = keys.filter((k) => k.startsWith('ed25519:')).map((k) => k.slice('ed25519:'.length));
  const passkeys = keys.filter(isPasskeyLine).map((k) => parsePasskeyLine(k)!);
  return { ed25519, passkeys };
}
