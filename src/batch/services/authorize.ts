/**
 * Approval as a property of the file: what people said about a batch's file (the batch store keeps it
 * by the file's sha256) judged under the current policy. The submitter, the worker's activities, the
 * command line and the console all ask here; workflows/shared/approval.ts holds the rules.
 */
import { createHash } from 'node:crypto';
import {
  approversNeeded,
  checkBatchDecision,
  checkDailyOrder,
  checkStatement,
  judgeBatch,
  moscowDay,
  type BatchSubject,
} from '../../../workflows/shared/approval';
import type {
  BatchAuthorization,
  DailyEvidence,
  PayoutAuthorization,
  SignedStatement,
  SubmitSource,
} from '../../../workflows/shared/approval-contract';
import type { PayoutRequest } from '../../domain';
import { t } from '../../i18n';
import type { Policy } from '../../policy/file';
import { signStatement, type Signer } from '../../policy/keys';
import { claimPasskeyCounter, withPasskeyCounters } from './passkey-evidence';
import { dailyEvidence, type EvidenceSource } from './daily-approvals';
import { unprovenRepayment } from './repayment';
import { parseDerivedReference } from '../../domain/rules';
import type { StoredBatchMeta } from '../store/files';
import { batchStoreFor } from '../store/open';
import { boundRows, canonical } from './bound-rows';

export const subjectOf = (
  meta: Pick<StoredBatchMeta, 'batchId' | 'contentHash' | 'totalKopecks' | 'rowCount'>,
): BatchSubject => ({
  batchId: meta.batchId,
  fileSha256: meta.contentHash,
  totalKopecks: meta.totalKopecks,
  rows: meta.rowCount,
});

/** Judging verifies signatures (about a millisecond each): once per batch, policy and record, not per payout. */
const judged = new Map<string, BatchAuthorization>();
const JUDGED_KEPT = 64;

/** A batch's meta never changes once written (chunks first, meta last): read once per worker. */
const metas = new Map<string, StoredBatchMeta>();
async function metaOf(dataDir: string, batchId: string): Promise<StoredBatchMeta> {
  const key = `${dataDir}\0${batchId}`;
  let meta = metas.get(key);
  if (!meta) {
    meta = await batchStoreFor(dataDir).readMeta(batchId);
    if (metas.size >= JUDGED_KEPT) metas.delete(metas.keys().next().value!);
    metas.set(key, meta);
  }
  return meta;
}

/** The record of a file, or nothing with why when it cannot be read: an unreadable record proves no one. */
async function readRecord(
  dataDir: string,
  fileSha256: string,
): Promise<{ statements: SignedStatement[]; unreadable?: string }> {
  try {
    return { statements: await batchStoreFor(dataDir).readStatements(fileSha256) };
  } catch (err) {
    return { statements: [], unreadable: `the file's record could not be read: ${(err as Error).message}` };
  }
}

/** What the cache knows a record by: its statements' signatures, so a deleted line changes it. */
const digestOf = (statements: SignedStatement[]) =>
  createHash('sha256')
    .update(statements.map((s) => s.signature).join('\n'))
    .digest('hex');

/**
 * The file's record judged, with the lone approver's day summed over the batch store when the policy
 * limits what one approver approves alone (read only then: a batch with no approval, or two, needs no sum).
 */
async function judgeRecord(
  dataDir: string,
  policy: Policy,
  meta: StoredBatchMeta,
  record: { statements: SignedStatement[]; unreadable?: string },
  now: number,
  opts: { requested?: boolean; ignoreAge?: boolean },
  source: EvidenceSource | undefined,
): Promise<{ auth: BatchAuthorization; daily?: DailyEvidence }> {
  const subject = subjectOf(meta);
  let auth = judgeBatch(policy.view, record.statements, subject, now, opts);
  let daily: DailyEvidence | undefined;
  const first = auth.approvedBy[0];
  const limited = policy.view.rules.oneApproverDailyLimitKopecks !== undefined;
  if (limited && first !== undefined && approversNeeded(policy.view, meta.totalKopecks) === 1) {
    const day = moscowDay(auth.approvedAt![first]!);
    daily = await dailyEvidence(dataDir, policy.view, day, meta.batchId, source);
    auth = judgeBatch(policy.view, record.statements, subject, now, opts, daily);
  }
  if (record.unreadable)
    auth = {
      ...auth,
      refused: [...auth.refused, { person: '-', decision: 'submit', reason: record.unreadable }],
    };
  return { auth, ...(daily ? { daily } : {}) };
}

export async function batchAuthorization(
  dataDir: string,
  policy: Policy,
  batchId: string,
  opts: { requested?: boolean; ignoreAge?: boolean } = {},
  now = Date.now(),
  source?: EvidenceSource,
): Promise<BatchAuthorization> {
  const meta = await metaOf(dataDir, batchId);
  // Read every time (a few lines): a record emptied or cut after a genuine approval is judged again.
  const record = await readRecord(dataDir, meta.contentHash);
  const key = opts.ignoreAge
    ? `${dataDir}\0${batchId}\0${policy.view.version}\0${digestOf(record.statements)}\0${opts.requested ?? false}`
    : undefined; // judged with their age, approvals change with the clock: never cached
  const hit = key !== undefined ? judged.get(key) : undefined;
  if (hit) return hit;
  const { auth } = await judgeRecord(dataDir, policy, meta, record, now, opts, source);
  if (key !== undefined) {
    if (judged.size >= JUDGED_KEPT) judged.delete(judged.keys().next().value!);
    judged.set(key, auth);
  }
  return auth;
}

/** Why a person's submit statement would not count, in the language set: nothing starts on it. */
export class SubmitterRefused extends Error {}

function refusedSubmitter(policy: Policy, signed: SignedStatement, now: number): string | undefined {
  const { person, via } = signed.statement;
  const who = policy.view.people.find((p) => p.id === person);
  const where = policy.path;
  if (!who) return t('submit.refused.unknown', { person, where });
  if (who.revokedAt && Date.parse(who.revokedAt) <= now)
    return t('submit.refused.revoked', { person, at: who.revokedAt });
  if (!who.roles.some((r) => r === 'preparer' || r === 'service' || r === 'admin'))
    return t('submit.refused.role', { person, roles: who.roles.join(', ') });
  const checked = checkStatement(policy.view, signed, now);
  if (checked.ok) return undefined;
  if (/^the signature is not/.test(checked.reason))
    return t('submit.refused.key', { person: via ?? person, where });
  return t('submit.refused.other', { person, reason: checked.reason });
}

/**
 * The submitter's own statement about the batch, checked against the policy before anything is stored or
 * started: a statement that would not verify in the worker is refused here, naming the person and why.
 * Without a policy (a library caller that has none) it is only signed: the worker's judging still
 * refuses to approve or pay a batch whose submit statement does not verify.
 */
export function signSubmission(
  policy: Policy | undefined,
  meta: Pick<StoredBatchMeta, 'batchId' | 'contentHash' | 'totalKopecks' | 'rowCount'>,
  signer: Signer,
  source: SubmitSource,
  requireApproval: boolean,
  now = new Date(),
): SignedStatement {
  const signed = signStatement(
    signer,
    {
      kind: 'batch',
      decision: 'submit',
      ...subjectOf(meta),
      source,
      ...(requireApproval ? { requireApproval: true } : {}),
    },
    now,
  );
  const refused = policy && refusedSubmitter(policy, signed, now.getTime());
  if (refused) throw new SubmitterRefused(refused);
  return signed;
}

/** Whether the file's record holds a verified submit statement of this batch under the policy now. */
export async function hasVerifiedSubmission(
  dataDir: string,
  policy: Policy,
  meta: StoredBatchMeta,
  now = Date.now(),
): Promise<boolean> {
  const { statements } = await readRecord(dataDir, meta.contentHash);
  return judgeBatch(policy.view, statements, subjectOf(meta), now).submitter !== undefined;
}

export type DecisionOutcome =
  | { accepted: true; auth: BatchAuthorization }
  | { accepted: false; auth: BatchAuthorization; reason: string };

/**
 * An approval or rejection, checked against the policy as it is now (a person revoked since the workflow
 * last looked is refused here), the file's record (no verified submit statement: no approval) and, under
 * a daily limit, the approver's other approvals of the day; kept only when it counts.
 */
export async function recordDecision(
  dataDir: string,
  policy: Policy,
  batchId: string,
  signed: SignedStatement,
  opts: { requested?: boolean } = {},
  now = Date.now(),
  source?: EvidenceSource,
): Promise<DecisionOutcome> {
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  const judge = async () =>
    judgeRecord(dataDir, policy, meta, await readRecord(dataDir, meta.contentHash), now, opts, source);
  // With the counters accepted so far: a passkey's answer must move its counter on (a replay does not).
  const before = await withPasskeyCounters(store, (await judge()).auth);
  const checked = checkBatchDecision(before, signed, subjectOf(meta), now);
  if (!checked.ok) return { accepted: false, auth: before, reason: checked.reason };
  if (checked.value.decision === 'approve' && policy.view.rules.oneApproverDailyLimitKopecks !== undefined) {
    const day = moscowDay(checked.value.at);
    const ordered = checkDailyOrder(
      await dailyEvidence(dataDir, policy.view, day, batchId, source),
      checked.value,
    );
    if (!ordered.ok) return { accepted: false, auth: before, reason: ordered.reason };
  }
  const replayed = await claimPasskeyCounter(store, signed);
  if (replayed) return { accepted: false, auth: before, reason: replayed };
  await store.appendStatement(meta.contentHash, signed);
  return { accepted: true, auth: await withPasskeyCounters(store, (await judge()).auth) };
}

/**
 * Whether a payout may create a bank session: a payout of a batch only when the batch's file is approved
 * (or needs no approval) and the payout is exactly one of its rows; a payout started by hand needs its own
 * approval above the policy's amount. Asked once per payout, before any bank call.
 */
export async function payoutAuthorization(
  dataDir: string,
  policy: Policy,
  input: {
    batchId?: string;
    request: PayoutRequest;
    requested?: boolean;
    /** The workflow that started the payout as its child, as the server told the payout (null: none). */
    startedBy?: string | null;
  },
  now = Date.now(),
  source?: EvidenceSource,
): Promise<PayoutAuthorization> {
  const { batchId, request } = input;
  const asked: PayoutAuthorization = {
    kind: 'own_approval',
    policy: policy.view,
    because: 'its starter asked for approval',
  };
  if (batchId === undefined) {
    const above = policy.view.rules.handStartedApprovalAboveKopecks;
    if (input.requested) return asked;
    return request.amount > above
      ? {
          kind: 'own_approval',
          policy: policy.view,
          because: `started outside any batch, for more than ${above} kopecks: the policy asks an approver's signed approval`,
        }
      : { kind: 'not_needed', because: `started outside any batch, for at most ${above} kopecks` };
  }
  const refused = (reason: string): PayoutAuthorization => ({
    kind: 'refused',
    code: 'not_approved',
    reason,
  });
  // Only the batch judges its approval's age, its rejection and its cancel when it starts paying; a payout
  // started by anyone else that names the batch would borrow an approval the batch itself no longer acts on.
  if (input.startedBy !== batchId)
    return refused(
      `a payout of batch ${batchId} pays only when that batch starts it; this one was ${input.startedBy ? `started by ${input.startedBy}` : 'started by hand'}`,
    );
  if (!(await batchStoreFor(dataDir).exists(batchId)))
    return refused(`batch ${batchId} is not in the batch store`);
  const auth = await batchAuthorization(dataDir, policy, batchId, { ignoreAge: true }, now, source);
  if (!auth.satisfied)
    return refused(
      auth.rejected
        ? `batch ${batchId}'s file was rejected by ${auth.rejected.by}${auth.rejected.reason ? `: ${auth.rejected.reason}` : ''}`
        : `batch ${batchId} is not approved (${auth.approvedBy.length} of ${auth.needed} approvals; ${auth.because})`,
    );
  // The rows proven from the approved file's bytes (bound-rows.ts), never the store's chunks alone.
  const rows = await boundRows(dataDir, batchId);
  if (!rows.ok) return refused(`batch ${batchId} pays nothing: ${rows.reason}`);
  if (rows.byReference.get(request.reference) !== canonical(request))
    return refused(
      `reference ${request.reference} is not a row of batch ${batchId}'s approved file, or differs from it`,
    );
  // A re-payment is judged again where the money moves (its batch judged it when it read the row).
  if (parseDerivedReference(request.reference)) {
    if (!source) return refused(`${request.reference} re-pays a return: nothing to prove that return on`);
    const unproven = await unprovenRepayment(
      source.client,
      source.taskQueue,
      batchStoreFor(dataDir),
      batchId,
      request,
    );
    if (unproven) return refused(`${request.reference}: ${unproven}`);
  }
  return input.requested ? asked : { kind: 'batch', batchId };
}
