/**
 * The policy file: who may pay (people, roles, the keys that prove them) and the rules (when approval is
 * needed, four eyes above an amount, how long an approval lasts). YAML because operators edit it by hand
 * and comment it; checked whole at start, each error naming its line.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { z } from 'zod';
import { ConfigError, loadPolicyPath, policyPathIfSet, POLICY_VARIABLE, type Env } from '../config';
import { formatRubles, MoneyFormatError, rublesToKopecks } from '../money';
import { isValidInn } from '../domain/rules';
import type { PolicyPerson, PolicyView, Role } from '../../workflows/shared/approval-contract';
import type { IncomeLimits } from '../../workflows/recipient-ledger/contract';
import { keyEntry, passkeyView, proofsBlock, splitKeys, webauthnBlock } from './passkeys';

export const ROLES = [
  'preparer',
  'approver',
  'viewer',
  'admin',
  'service',
  'authenticator',
] as const satisfies readonly Role[];

export interface Policy {
  /** Where it was read from (errors and the audit name it). */
  path: string;
  view: PolicyView;
  /** Display names by person id: for people reading the audit, never for workflows or logs. */
  names: Map<string, string>;
  /** Console sign-in: scrypt password hashes and TOTP secrets by person id, when the policy has them. */
  logins: Map<string, { passwordHash?: string; totp?: string }>;
  /**
   * The limits a payout to this tax number is reserved against in the recipient's ledger, or undefined
   * when none applies (a plain row with no per-payout or monthly limit). Tax numbers stay here, in the
   * worker: never in the view workflows get.
   */
  limitsFor(taxReference: string, selfEmployed: boolean): IncomeLimits | undefined;
}

const HOUR = 3_600_000;

const roubles = (what: string) =>
  z
    .union([z.string(), z.number()], { error: `expected ${what} in roubles, like "1 000 000,00"` })
    .transform((v, ctx) => {
      try {
        return rublesToKopecks(String(v));
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `expected ${what} in roubles, like "1 000 000,00" (${err instanceof MoneyFormatError ? err.message : 'not an amount'})`,
        });
        return z.NEVER;
      }
    });

// An income limit of nothing or less would refuse every payout, and a negative known income or margin would
// raise the cap: refused, not read (to stop paying someone, the stop list does that).
const limit = roubles('an amount').refine((k) => k > 0, 'expected an amount above 0,00');
const allowance = roubles('an amount').refine((k) => k >= 0, 'expected an amount of 0,00 or more');

const person = z.strictObject({
  id: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9._-]{0,63}$/,
      'expected an id: 1–64 of a-z 0-9 . _ -, starting with a letter or digit',
    ),
  name: z.string().min(1).max(200),
  roles: z
    .array(z.enum(ROLES, { error: `expected roles among ${ROLES.join(', ')}` }))
    .min(1, 'expected at least one role'),
  keys: z.array(keyEntry).min(1, 'expected at least one public key'),
  revoked: z.union([z.string(), z.date()]).optional(),
  password: z
    .string()
    .regex(/^scrypt\$/, 'expected a scrypt$… hash (payrun console hash-password prints it)')
    .optional(),
  totp: z
    .string()
    .regex(/^[A-Z2-7]{16,64}$/, 'expected a base32 TOTP secret')
    .optional(),
});

const rules = z
  .strictObject({
    submitted_files_need_approval: z.boolean().default(true),
    dropped_files_need_approval: z.boolean().default(true),
    two_approvers_above: roubles('an amount').nullable().default(rublesToKopecks('1 000 000,00')),
    hand_started_payouts_need_approval_above: roubles('an amount').default(0),
    approvals_expire_after_hours: z
      .number()
      .positive()
      .max(24 * 366)
      .default(72),
    // Splitting a file under two_approvers_above: what one approver may approve alone per Moscow day,
    // summed over files, and how many distinct approvers a file needs once it would pass that sum.
    one_approver_daily_limit: limit.nullable().default(null),
    approvers_above_daily_limit: z.number().int().min(2).max(10).default(2),
    // A self-employed person's income for the year may not pass 2.4 million roubles; payrun sees only its
    // own payouts, so a margin (or a person's known income, below) keeps room for the rest.
    self_employed_yearly_cap: limit.default(rublesToKopecks('2 400 000,00')),
    self_employed_cap_margin: allowance.default(0),
    per_payout_limit: limit.nullable().default(null),
    per_month_limit: limit.nullable().default(null),
  })
  .refine((r) => r.self_employed_cap_margin < r.self_employed_yearly_cap, {
    path: ['self_employed_cap_margin'],
    error: (issue) => {
      const cap = (issue.input as { self_employed_yearly_cap: number }).self_employed_yearly_cap;
      return `expected less than self_employed_yearly_cap (${formatRubles(cap)}): no one could be paid as self-employed`;
    },
  })
  // Parsed through, so an absent rules block gets every default above.
  .prefault({});

const recipient = z.strictObject({
  inn: z
    .string({ error: 'expected a tax number: 10 or 12 digits, in quotes' })
    .regex(/^(\d{10}|\d{12})$/, 'expected a tax number: 10 or 12 digits, in quotes')
    // A typo would give its limits to no one; the number itself is not repeated (personal data).
    .refine(isValidInn, 'expected a tax number whose check digits match (a typo?)'),
  known_income: allowance.optional(),
  per_payout_limit: limit.optional(),
  per_month_limit: limit.optional(),
});

const policyFile = z.strictObject({
  people: z.array(person).min(1, 'expected at least one person'),
  rules,
  /** Per person: income known from elsewhere this year, and limits of their own. */
  recipients: z.array(recipient).default([]),
  /** The console's WebAuthn relying party, and which proofs count per act (src/policy/passkeys.ts). */
  webauthn: webauthnBlock.optional(),
  proofs: proofsBlock.optional(),
});

/** Parses policy text; every problem is named with its line (`path:line: field: rule`). */
export function parsePolicy(text: string, path: string): Policy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineOf = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  if (doc.errors.length > 0)
    throw new ConfigError(doc.errors.map((e) => `${path}:${lineOf(e.pos[0])}: ${e.message.split('\n')[0]}`));
  const raw: unknown = doc.toJS();
  const r = policyFile.safeParse(raw);
  const problems: string[] = [];
  const at = (keys: readonly PropertyKey[]): number => {
    let node: unknown = doc.contents;
    let offset = (node as Node | null)?.range?.[0];
    for (const key of keys) {
      if (isMap(node)) node = node.get(key, true);
      else if (isSeq(node)) node = node.get(Number(key), true);
      else break;
      offset = (node as Node | undefined)?.range?.[0] ?? offset;
    }
    return lineOf(offset);
  };
  if (!r.success)
    for (const issue of r.error.issues)
      problems.push(
        // An unknown key is named at its own line, not at its parent's.
        `${path}:${at(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path)}: ${issue.path.join('.') || 'policy'}: ${issue.message}`,
      );
  const ids = new Set<string>();
  const people: PolicyPerson[] = [];
  const names = new Map<string, string>();
  const logins = new Map<string, { passwordHash?: string; totp?: string }>();
  for (const [i, p] of (r.success ? r.data.people : []).entries()) {
    if (ids.has(p.id))
      problems.push(`${path}:${at(['people', i, 'id'])}: people.${i}.id: ${p.id} is listed twice`);
    ids.add(p.id);
    let revokedAt: string | undefined;
    if (p.revoked !== undefined) {
      const t = p.revoked instanceof Date ? p.revoked.getTime() : Date.parse(p.revoked);
      if (Number.isNaN(t))
        problems.push(
          `${path}:${at(['people', i, 'revoked'])}: people.${i}.revoked: expected a date and time`,
        );
      else revokedAt = new Date(t).toISOString();
    }
    const { ed25519, passkeys } = splitKeys(p.keys);
    people.push({
      id: p.id,
      roles: [...new Set(p.roles)],
      keys: ed25519,
      ...(passkeys.length > 0 ? { passkeys } : {}),
      ...(revokedAt ? { revokedAt } : {}),
    });
    names.set(p.id, p.name);
    logins.set(p.id, {
      ...(p.password ? { passwordHash: p.password } : {}),
      ...(p.totp ? { totp: p.totp } : {}),
    });
  }
  const firstListed = new Map<string, number>();
  for (const [i, x] of (r.success ? r.data.recipients : []).entries()) {
    const first = firstListed.get(x.inn);
    if (first !== undefined)
      problems.push(
        `${path}:${at(['recipients', i, 'inn'])}: recipients.${i}.inn: listed twice (also recipients.${first})`,
      );
    else firstListed.set(x.inn, i);
  }
  if (problems.length > 0 || !r.success) throw new ConfigError(problems);
  const rl = r.data.rules;
  const byInn = new Map(r.data.recipients.map((x) => [x.inn, x]));
  const cap = Math.max(0, rl.self_employed_yearly_cap - rl.self_employed_cap_margin);
  const limitsFor = (inn: string, selfEmployed: boolean): IncomeLimits | undefined => {
    const own = byInn.get(inn);
    const perPayout = own?.per_payout_limit ?? rl.per_payout_limit ?? undefined;
    const perMonth = own?.per_month_limit ?? rl.per_month_limit ?? undefined;
    if (!selfEmployed && perPayout === undefined && perMonth === undefined) return undefined;
    return {
      ...(selfEmployed ? { yearlyCapKopecks: cap } : {}),
      ...(own?.known_income !== undefined ? { knownIncomeKopecks: own.known_income } : {}),
      ...(perPayout !== undefined ? { perPayoutKopecks: perPayout } : {}),
      ...(perMonth !== undefined ? { perMonthKopecks: perMonth } : {}),
    };
  };
  return {
    path,
    names,
    logins,
    limitsFor,
    view: {
      version: createHash('sha256').update(text).digest('hex').slice(0, 16),
      people,
      rules: {
        submittedNeedApproval: rl.submitted_files_need_approval,
        droppedNeedApproval: rl.dropped_files_need_approval,
        twoApproversAboveKopecks: rl.two_approvers_above,
        handStartedApprovalAboveKopecks: rl.hand_started_payouts_need_approval_above,
        approvalExpiresAfterMs: rl.approvals_expire_after_hours * HOUR,
        ...(rl.one_approver_daily_limit !== null
          ? {
              oneApproverDailyLimitKopecks: rl.one_approver_daily_limit,
              approversAboveDailyLimit: rl.approvers_above_daily_limit,
            }
          : {}),
      },
      ...passkeyView(r.data.webauthn, r.data.proofs),
    },
  };
}

export { POLICY_VARIABLE };

/** The policy named by PAYRUN_POLICY_FILE; a missing variable or file is a configuration error. */
export function loadPolicy(env?: Env): Policy {
  const path = loadPolicyPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`${POLICY_VARIABLE}: cannot read ${path}: ${(err as Error).message}`]);
  }
  return parsePolicy(text, path);
}

/**
 * The policy as a worker keeps it: read again when the file changes, so a revocation takes effect without
 * a restart. An edit that breaks the file fails closed: every check throws (and its activity retries) until
 * the file is mended, rather than going on under the policy before the edit.
 */
export class PolicySource {
  private cached?: { policy: Policy; stamp: string };

  constructor(private readonly env?: Env) {}

  current(): Policy {
    const path = policyPathIfSet(this.env);
    let stamp = '';
    try {
      // Asked before every payout: the file's identity, size and change time say whether to read it again
      // (an editor's save or an atomic rename changes at least one of them).
      const st = path ? statSync(path) : undefined;
      stamp = st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : '';
    } catch {
      // unreadable now: loadPolicy below says why
    }
    if (this.cached && stamp !== '' && this.cached.stamp === stamp) return this.cached.policy;
    const policy = loadPolicy(this.env);
    this.cached = { policy, stamp };
    return policy;
  }
}
