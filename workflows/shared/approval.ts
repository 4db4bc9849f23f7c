/**
 * Checks signed statements against the policy: the one rule for the workflows' Update validators, the
 * worker's activities, the command line and the console. Pure and deterministic (the workflow bundle
 * includes it): Ed25519 from @noble/curves, a pure-JS implementation, because workflow code may not
 * load Node's crypto; `now` is always passed in.
 */
import { z } from 'zod';
import { isBatchId, isPayoutReference } from '../../src/domain/rules';
import { checkProof, passkeyProofSchema } from './approval-proofs';
import {
  type BatchAuthorization,
  type BatchStatement,
  type DailyEvidence,
  type Decision,
  type PayoutStatement,
  type PolicyPerson,
  type PolicyView,
  type Role,
  type SignedStatement,
} from './approval-contract';

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A statement signed a little in the future is a clock apart; more than this is refused. */
const CLOCK_SKEW_MS = 5 * 60_000;

const HEX64 = /^[0-9a-f]{64}$/;
const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** Whether a value is a person id as the policy writes them. */
export const isPersonId = (v: unknown): v is string => typeof v === 'string' && ID.test(v);

const personId = z
  .string()
  .regex(ID, 'expected a person id: 1–64 of a-z 0-9 . _ -, starting with a letter or digit');
const when = z.string().regex(ISO, 'expected a UTC time like 2026-11-24T09:30:00.000Z');
const whole = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const batchStatement = z.strictObject({
  v: z.literal(1),
  kind: z.literal('batch'),
  decision: z.enum(['submit', 'approve', 'reject']),
  batchId: z.string().refine(isBatchId, 'expected batch-<16 hex digits>[-retry-<n>]'),
  fileSha256: z.string().regex(HEX64, 'expected the file’s sha256: 64 hex digits'),
  totalKopecks: whole,
  rows: whole,
  person: personId,
  at: when,
  source: z.enum(['cli', 'inbox', 'console', 'schedule']).optional(),
  requireApproval: z.boolean().optional(),
  reason: z.string().max(500).optional(),
  via: personId.optional(),
});

const payoutStatement = z.strictObject({
  v: z.literal(1),
  kind: z.literal('payout'),
  decision: z.literal('approve'),
  reference: z.string().refine(isPayoutReference, 'expected a payout reference'),
  runId: z.string().min(1).max(64),
  amount: whole,
  person: personId,
  at: when,
  via: personId.optional(),
});

const signedStatement = z
  .strictObject({
    statement: z.discriminatedUnion('kind', [batchStatement, payoutStatement]),
    signature: z
      .string()
      .regex(/^[0-9a-f]{128}$/, 'expected an Ed25519 signature: 128 hex digits')
      .optional(),
    passkey: passkeyProofSchema().optional(),
  })
  .refine((x) => (x.signature === undefined) !== (x.passkey === undefined), {
    message: 'expected exactly one proof: an Ed25519 signature or a passkey’s answer',
  });

/**
 * A signed statement, or why the input is not one. An old-style `{ by: "name" }` is refused with the way
 * to give a real approval: a typed name proves nothing.
 */
export function parseSignedStatement(raw: unknown): Checked<SignedStatement> {
  if (raw && typeof raw === 'object' && 'by' in raw && !('statement' in raw))
    return {
      ok: false,
      reason:
        'a name is not an approval: it must be a statement signed by the person (payrun batch approve|reject, payrun payout approve, or the console)',
    };
  const r = signedStatement.safeParse(raw);
  if (r.success) return { ok: true, value: r.data as SignedStatement };
  const issue = r.error.issues[0]!;
  return { ok: false, reason: `${issue.path.join('.') || 'input'}: ${issue.message}` };
}

const MAY: Record<Decision | 'payout' | 'resolve', readonly Role[]> = {
  submit: ['preparer', 'service', 'admin'],
  approve: ['approver'],
  reject: ['approver'],
  payout: ['approver'],
  /** Closing a reconciliation difference: the people who prepare and approve payments (accounting). */
  resolve: ['preparer', 'approver', 'admin'],
};

const revoked = (p: PolicyPerson, at: number) => p.revokedAt !== undefined && Date.parse(p.revokedAt) <= at;

/**
 * The statement's person, when its signature checks out under the policy, the person may make this kind
 * of statement, neither they (nor the service signing for them) are revoked, and it is not from the future.
 */
export function checkStatement(
  policy: PolicyView,
  signed: SignedStatement,
  now: number,
  passkeyCounters?: Record<string, number>,
): Checked<PolicyPerson> {
  const s = signed.statement;
  const person = policy.people.find((p) => p.id === s.person);
  if (!person) return { ok: false, reason: `${s.person} is not a person of the policy` };
  if (revoked(person, now)) return { ok: false, reason: `${s.person} was revoked at ${person.revokedAt}` };
  const role = s.kind === 'payout' ? 'payout' : s.decision;
  if (!person.roles.some((r) => MAY[role].includes(r)))
    return {
      ok: false,
      reason: `${s.person} may not ${role === 'payout' ? 'approve' : role} (roles: ${person.roles.join(', ') || 'none'}; needs ${MAY[role].join(' or ')})`,
    };
  let signer = person;
  if (s.via !== undefined) {
    const via = policy.people.find((p) => p.id === s.via);
    if (!via || !via.roles.includes('authenticator'))
      return { ok: false, reason: `${s.via} is not an authenticating service of the policy` };
    if (revoked(via, now)) return { ok: false, reason: `${s.via} was revoked at ${via.revokedAt}` };
    signer = via;
  }
  // Which proof counts for this act (the console's key alone approves nothing by default), and that it holds.
  const proven = checkProof(policy, signed, signer, role, passkeyCounters);
  if (!proven.ok) return proven;
  if (Date.parse(s.at) > now + CLOCK_SKEW_MS)
    return { ok: false, reason: `it is dated in the future (${s.at})` };
  return { ok: true, value: person };
}

/** What a batch statement must match: the batch and the exact file it was made from. */
export interface BatchSubject {
  batchId: string;
  fileSha256: string;
  totalKopecks: number;
  rows: number;
}

function sameBatch(s: BatchStatement, subject: BatchSubject): string | undefined {
  if (s.fileSha256 !== subject.fileSha256) return 'it is about another file (this file changed since?)';
  if (s.decision === 'reject') return undefined; // a rejection is of the file, whichever batch of it
  if (s.batchId !== subject.batchId) return `it is about batch ${s.batchId}, not ${subject.batchId}`;
  if (s.totalKopecks !== subject.totalKopecks || s.rows !== subject.rows)
    return `it is about ${s.rows} rows totalling ${s.totalKopecks} kopecks, not ${subject.rows} rows and ${subject.totalKopecks}`;
  return undefined;
}

export function approversNeeded(policy: PolicyView, totalKopecks: number): number {
  const above = policy.rules.twoApproversAboveKopecks;
  return above !== null && totalKopecks > above ? 2 : 1;
}

/** Why a batch without a verified submit statement pays nothing: deleting evidence must not remove the rule. */
export const NO_SUBMITTER = "the file's record has no verified submit statement: resubmit it";

/** Why a submitter's approval does not count (src/i18n/operator-answers.ts translates it). */
const ownApproval = (person: string) => `${person} submitted this batch: an approver must be someone else`;

/** A Moscow calendar date (YYYY-MM-DD) of an ISO moment: the day a daily limit sums over. */
export function moscowDay(iso: string): string {
  return new Date(Date.parse(iso) + 3 * 3_600_000).toISOString().slice(0, 10);
}

const rubles = (kopecks: number) =>
  `${Math.floor(kopecks / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},${String(kopecks % 100).padStart(2, '0')} ₽`;

/**
 * A lone approver's sum for the day of their approval: the files they approved alone earlier that day
 * (by time, then batch id) plus this one. Only earlier approvals count, so a later file never takes
 * paying away from one already allowed; a backdated approval is refused when it is recorded.
 */
function dailyShortfall(
  policy: PolicyView,
  daily: DailyEvidence | undefined,
  subject: BatchSubject,
  person: string,
  at: string,
): string | undefined {
  const limit = policy.rules.oneApproverDailyLimitKopecks;
  if (limit === undefined) return undefined;
  const day = moscowDay(at);
  if (!daily || daily.day !== day)
    return `${person} approved alone and the approvals of ${day} could not be summed: a second approver is needed`;
  if (daily.incomplete)
    return `${person} approved alone and the evidence of ${day}'s approvals is incomplete (${daily.incomplete}): a second approver is needed`;
  const earlier = daily.approvals.filter(
    (a) =>
      a.person === person &&
      a.alone &&
      a.batchId !== subject.batchId &&
      moscowDay(a.at) === day &&
      (Date.parse(a.at) < Date.parse(at) ||
        (Date.parse(a.at) === Date.parse(at) && a.batchId < subject.batchId)),
  );
  const sum = earlier.reduce((n, a) => n + a.totalKopecks, subject.totalKopecks);
  if (sum <= limit) return undefined;
  return `${person}'s approvals alone on ${day} would total ${rubles(sum)} with this file (${earlier.length} before it), more than the daily limit of ${rubles(limit)}`;
}

/**
 * The worker's check of a new approval against the approver's others of that day: dated before one they
 * already gave, it could slip under the daily sum of the files approved before it, so it is refused.
 */
export function checkDailyOrder(
  daily: DailyEvidence | undefined,
  s: BatchStatement,
): Checked<BatchStatement> {
  const later = daily?.approvals.find(
    (a) => a.person === s.person && a.batchId !== s.batchId && Date.parse(a.at) > Date.parse(s.at),
  );
  return later
    ? {
        ok: false,
        reason: `${s.person} approved batch ${later.batchId} at ${later.at}, after this approval's time ${s.at}: sign it again`,
      }
    : { ok: true, value: s };
}

/**
 * Everything said about a batch's file, judged: who submitted it, whether approval is required (the policy
 * for how it came, or its submitters' or starter's request: nothing lowers it), who approved it since the
 * last rejection, and whether paying may start. A batch with no verified submit statement cannot be paid
 * or approved until it is resubmitted. `ignoreAge`: approvals that counted when the batch started paying
 * still count for its payouts (expiry guards the start, not a batch already paying). `daily`: the other
 * files' approvals of the lone approver's day, when the policy limits what one approver approves alone.
 */
export function judgeBatch(
  policy: PolicyView,
  statements: SignedStatement[],
  subject: BatchSubject,
  now: number,
  opts: { requested?: boolean; ignoreAge?: boolean } = {},
  daily?: DailyEvidence,
): BatchAuthorization {
  const refused: BatchAuthorization['refused'] = [];
  const valid: BatchStatement[] = [];
  for (const signed of statements) {
    if (signed.statement.kind !== 'batch') continue;
    const s = signed.statement;
    const mismatch = sameBatch(s, subject);
    // Statements about the file's other batches (a retry's first run, say) are simply not about this one.
    if (mismatch) {
      if (s.batchId === subject.batchId)
        refused.push({ person: s.person, decision: s.decision, reason: mismatch });
      continue;
    }
    const checked = checkStatement(policy, signed, now);
    if (checked.ok) valid.push(s);
    else refused.push({ person: s.person, decision: s.decision, reason: checked.reason });
  }
  const byTime = (a: BatchStatement, b: BatchStatement) => Date.parse(a.at) - Date.parse(b.at);
  valid.sort(byTime);
  const submits = valid.filter((s) => s.decision === 'submit');
  const submit = submits[submits.length - 1];
  const submittedBy = [...new Set(submits.map((s) => s.person))];
  // A recurring payrun's period is submitted by a service on a calendar: a person always approves it.
  const needs = (s: BatchStatement) =>
    (s.source === 'inbox' ? policy.rules.droppedNeedApproval : policy.rules.submittedNeedApproval) ||
    !!s.requireApproval ||
    s.source === 'schedule';
  const fromInbox = submit?.source === 'inbox';
  const byPolicy = fromInbox ? policy.rules.droppedNeedApproval : policy.rules.submittedNeedApproval;
  const required = !submit || submits.some(needs) || !!opts.requested;
  const because = !submit
    ? NO_SUBMITTER
    : byPolicy
      ? `the policy requires approval of ${fromInbox ? 'dropped' : 'submitted'} files`
      : submit.source === 'schedule'
        ? 'a recurring payrun’s period always needs approval'
        : required
          ? 'its submitter asked for approval'
          : `the policy does not require approval of ${fromInbox ? 'dropped' : 'submitted'} files`;
  const rejection = valid.filter((s) => s.decision === 'reject').pop();
  const approvedBy: string[] = [];
  const approvedAt: Record<string, string> = {};
  for (const s of valid) {
    if (s.decision !== 'approve') continue;
    const reason = submittedBy.includes(s.person)
      ? ownApproval(s.person)
      : rejection && Date.parse(s.at) <= Date.parse(rejection.at)
        ? `given before ${rejection.person} rejected the file at ${rejection.at}`
        : !opts.ignoreAge && Date.parse(s.at) + policy.rules.approvalExpiresAfterMs < now
          ? `expired: given at ${s.at}, approvals count for ${Math.round(policy.rules.approvalExpiresAfterMs / 3_600_000)} h`
          : undefined;
    if (reason) refused.push({ person: s.person, decision: 'approve', reason });
    else if (!approvedBy.includes(s.person)) {
      approvedBy.push(s.person);
      approvedAt[s.person] = s.at;
    }
  }
  let needed = approversNeeded(policy, subject.totalKopecks);
  // The first approver, as if alone: past the day's sum, the file needs more (and says so once it has them).
  const first =
    needed === 1 && (approvedBy.length === 1 || (daily && approvedBy.length > 1)) ? approvedBy[0] : undefined;
  const shortfall =
    first !== undefined ? dailyShortfall(policy, daily, subject, first, approvedAt[first]!) : undefined;
  if (shortfall) needed = Math.max(2, policy.rules.approversAboveDailyLimit ?? 2);
  const enough = approvedBy.length >= needed;
  const standingRejection = rejection && !enough;
  return {
    required,
    needed,
    because: shortfall ? `${because}; ${shortfall}: ${needed} approvers needed` : because,
    ...(submit ? { submitter: submit.person, submittedBy } : {}),
    approvedBy,
    ...(approvedBy.length ? { approvedAt } : {}),
    ...(standingRejection
      ? {
          rejected: {
            by: rejection.person,
            at: rejection.at,
            ...(rejection.reason ? { reason: rejection.reason } : {}),
          },
        }
      : {}),
    refused,
    satisfied: !!submit && (enough || (!required && !rejection)),
    policy,
  };
}

/**
 * The worker's judgment with every submitter the batch has ever seen added: the record's lines can be
 * removed by a store writer, the batch's memory cannot. None of them may approve it, so their approvals
 * stop counting and paying then waits for someone else's (fail closed: an approval whose effect on a
 * rejection or a daily limit is unknown no longer satisfies anything). Where the record names them all,
 * nothing changes but `submittedBy`.
 */
export function rememberSubmitters(
  auth: BatchAuthorization,
  remembered: readonly string[],
): BatchAuthorization {
  const known = [...(auth.submittedBy ?? []), ...(auth.submitter ? [auth.submitter] : []), ...remembered];
  const submittedBy = [...new Set(known)];
  if (!submittedBy.length) return auth;
  const own = auth.approvedBy.filter((p) => submittedBy.includes(p));
  if (!own.length) return { ...auth, submittedBy };
  const approvedBy = auth.approvedBy.filter((p) => !own.includes(p));
  const { approvedAt, ...rest } = auth;
  const stillAt = Object.entries(approvedAt ?? {}).filter(([p]) => approvedBy.includes(p));
  return {
    ...rest,
    submittedBy,
    approvedBy,
    ...(stillAt.length ? { approvedAt: Object.fromEntries(stillAt) } : {}),
    refused: [
      ...auth.refused,
      ...own.map((person) => ({ person, decision: 'approve' as const, reason: ownApproval(person) })),
    ],
    satisfied: auth.satisfied && approvedBy.length >= auth.needed,
  };
}

/**
 * Whether one more statement would count for this batch now: the validator's question, so that a forged,
 * replayed, self-given or repeated approval is refused before it reaches history.
 */
export function checkBatchDecision(
  auth: BatchAuthorization,
  signed: SignedStatement,
  subject: BatchSubject,
  now: number,
): Checked<BatchStatement> {
  const s = signed.statement;
  if (s.kind !== 'batch' || s.decision === 'submit')
    return { ok: false, reason: 'expected an approve or reject statement about this batch' };
  const mismatch =
    sameBatch(s, subject) ??
    (s.batchId !== subject.batchId ? `it is about batch ${s.batchId}, not ${subject.batchId}` : undefined);
  if (mismatch) return { ok: false, reason: mismatch };
  const checked = checkStatement(auth.policy, signed, now, auth.passkeyCounters);
  if (!checked.ok) return checked;
  if (s.decision === 'approve') {
    if (auth.submitter === undefined) return { ok: false, reason: NO_SUBMITTER };
    if (auth.rejected && Date.parse(s.at) <= Date.parse(auth.rejected.at))
      return {
        ok: false,
        reason: `given before ${auth.rejected.by} rejected the file at ${auth.rejected.at}`,
      };
    if (auth.submitter === s.person || auth.submittedBy?.includes(s.person))
      return { ok: false, reason: ownApproval(s.person) };
    if (auth.approvedBy.includes(s.person))
      return { ok: false, reason: `${s.person} has already approved this batch` };
    if (Date.parse(s.at) + auth.policy.rules.approvalExpiresAfterMs < now)
      return { ok: false, reason: `the statement expired (given at ${s.at})` };
    // An approval is of now: a backdated one could slip before a day's earlier approvals (a daily limit).
    if (Date.parse(s.at) < now - CLOCK_SKEW_MS)
      return { ok: false, reason: `it was signed at ${s.at}, more than 5 minutes ago: sign it again` };
  }
  return { ok: true, value: s };
}

/** Whether a payout approval counts for this run of this payout. */
export function checkPayoutApproval(
  policy: PolicyView,
  signed: SignedStatement,
  subject: { reference: string; runId: string; amount: number },
  now: number,
): Checked<PayoutStatement> {
  const s = signed.statement;
  if (s.kind !== 'payout') return { ok: false, reason: 'expected a payout approval statement' };
  if (s.reference !== subject.reference || s.runId !== subject.runId)
    return { ok: false, reason: `it approves ${s.reference} run ${s.runId}, not this run ${subject.runId}` };
  if (s.amount !== subject.amount)
    return { ok: false, reason: `it approves ${s.amount} kopecks, not ${subject.amount}` };
  const checked = checkStatement(policy, signed, now);
  if (!checked.ok) return checked;
  if (Date.parse(s.at) + policy.rules.approvalExpiresAfterMs < now)
    return { ok: false, reason: `the statement expired (given at ${s.at})` };
  return { ok: true, value: s };
}
