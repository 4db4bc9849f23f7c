/**
 * Writes a policy file with a fresh key per person: the demo's people, and the tests'. Production policies
 * are written by hand (docs/security.md#who-may-pay); this is the same format, made in one step.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Role } from '../../workflows/shared/approval-contract';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { generateSigningKey } from './keys';

export interface PersonSpec {
  id: string;
  name: string;
  roles: Role[];
  revoked?: string;
  /** Console sign-in: a `scrypt$…` hash (src/console/passwords.ts hashPassword), written as `password`. */
  passwordHash?: string;
  /** Console sign-in's second factor: a base32 TOTP secret. */
  totp?: string;
  /** `passkey:…` lines listed after the person's key (the console's passkey page prints them). */
  passkeys?: string[];
}

/** The policy's passkey blocks (src/policy/passkeys.ts), written as they are. */
export interface PolicyPasskeySpec {
  webauthn?: { rp_id: string; origin: string };
  proofs?: Partial<Record<'submit' | 'approve' | 'reject' | 'payout', string[]>>;
}

export interface PolicyRulesSpec {
  submitted_files_need_approval?: boolean;
  dropped_files_need_approval?: boolean;
  two_approvers_above?: string | null;
  hand_started_payouts_need_approval_above?: string;
  approvals_expire_after_hours?: number;
  one_approver_daily_limit?: string | null;
  approvers_above_daily_limit?: number;
  self_employed_yearly_cap?: string;
  self_employed_cap_margin?: string;
  per_payout_limit?: string | null;
  per_month_limit?: string | null;
  /** Per tax number: income known from elsewhere, limits of their own (written as the file's `recipients`). */
  recipients?: { inn: string; known_income?: string; per_payout_limit?: string; per_month_limit?: string }[];
}

export interface WrittenPolicy {
  file: string;
  /** Each person's private key file, by id. */
  keyFiles: Record<string, string>;
}

/**
 * `<dir>/policy.yaml` and `<dir>/keys/<id>.pem`, owner-only. Keys already in `dir` are kept (the demo's
 * people keep their keys from run to run); the policy file is written anew from `people` and `rules`.
 */
export function writePolicy(
  dir: string,
  people: PersonSpec[],
  rules: PolicyRulesSpec = {},
  passkeys: PolicyPasskeySpec = {},
): WrittenPolicy {
  ensurePrivateDir(dir);
  ensurePrivateDir(join(dir, 'keys'));
  const keyFiles: Record<string, string> = {};
  const listed = people.map((p) => {
    const keyFile = join(dir, 'keys', `${p.id}.pem`);
    const publicFile = `${keyFile}.pub`;
    if (!existsSync(keyFile) || !existsSync(publicFile)) {
      const key = generateSigningKey();
      writePrivateFile(keyFile, key.privateKeyPem);
      writePrivateFile(publicFile, key.publicKey);
    }
    keyFiles[p.id] = keyFile;
    return {
      id: p.id,
      name: p.name,
      roles: p.roles,
      keys: [readFileSync(publicFile, 'utf8').trim(), ...(p.passkeys ?? [])],
      ...(p.revoked ? { revoked: p.revoked } : {}),
      ...(p.passwordHash ? { password: p.passwordHash } : {}),
      ...(p.totp ? { totp: p.totp } : {}),
    };
  });
  const file = join(dir, 'policy.yaml');
  writePrivateFile(
    file,
    `# Who may pay (docs/security.md#who-may-pay). Written by payrun for ${dir}.\n` +
      stringify({
        people: listed,
        rules: { ...rules, recipients: undefined },
        recipients: rules.recipients ?? [],
        ...passkeys,
      }),
  );
  return { file, keyFiles };
}
