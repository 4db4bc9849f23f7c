/**
 * Approval as a property of the file: what people said about a batch's file (the batch store keeps it
 * by the file's sha256) judged under the current policy. The submitter, the worker's activities, the
 * command line and the console all ask here; workflows/approval.ts holds the rules.
 */
import { checkBatchDecision, judgeBatch, type BatchSubject } from '../../workflows/approval';
import type {
  BatchAuthorization,
  PayoutAuthorization,
  SignedStatement,
  SubmitSource,
} from '../../workflows/contracts/approval';
import type { PayoutRequest } from '../domain';
import type { Policy } from '../policy/file';
import { signStatement, type Signer } from '../policy/keys';
import { claimPasskeyCounter, withPasskeyCounters } from './passkey-evidence';
import type { StoredBatchMeta } from './store';
import { batchStoreFor } from './store/open';
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

export async function batchAuthorization(
  dataDir: string,
  policy: Policy,
  batchId: string,
  opts: { requested?: boolean; ignoreAge?: boolean } = {},
  now = Date.now(),
): Promise<BatchAuthorization> {
  const store = batchStoreFor(dataDir);
  const meta = await metaOf(dataDir, batchId);
  // The record only grows (append-only): its size says whether anything was said since.
  const key = opts.ignoreAge
    ? `${dataDir}\0${batchId}\0${policy.view.version}\0${await store.statementsVersion(meta.contentHash)}\0${opts.requested ?? false}`
    : undefined; // judged with their age, approvals change with the clock: never cached
  const hit = key !== undefined ? judged.get(key) : undefined;
  if (hit) return hit;
  const auth = judgeBatch(
    policy.view,
    await store.readStatements(meta.contentHash),
    subjectOf(meta),
    now,
    opts,
  );
  if (key !== undefined) {
    if (judged.size >= JUDGED_KEPT) judged.delete(judged.keys().next().value!);
    judged.set(key, auth);
  }
  return auth;
}

/** The submitter's own statement, stored before the batch starts: who submitted it, how, and what they asked. */
export async function recordSubmission(
  dataDir: string,
  meta: Pick<StoredBatchMeta, 'batchId' | 'contentHash' | 'totalKopecks' | 'rowCount'>,
  signer: Signer,
  source: SubmitSource,
  requireApproval: boolean,
): Promise<SignedStatement> {
  const signed = signStatement(signer, {
    kind: 'batch',
    decision: 'submit',
    ...subjectOf(meta),
    source,
    ...(requireApproval ? { requireApproval: true } : {}),
  });
  await batchStoreFor(dataDir).appendStatement(meta.contentHash, signed);
  return signed;
}

export type DecisionOutcome =
  | { accepted: true; auth: BatchAuthorization }
  | { accepted: false; auth: BatchAuthorization; reason: string };

/**
 * An approval or rejection, checked against the policy as it is now (a person revoked since the workflow
 * last looked is refused here) and the file's record; kept only when it counts.
 */
export async function recordDecision(
  dataDir: string,
  policy: Policy,
  batchId: string,
  signed: SignedStatement,
  opts: { requested?: boolean } = {},
  now = Date.now(),
): Promise<DecisionOutcome> {
  const store = batchStoreFor(dataDir);
  const meta = await store.readMeta(batchId);
  const subject = subjectOf(meta);
  const judged = judgeBatch(policy.view, await store.readStatements(meta.contentHash), subject, now, opts);
  // With the counters accepted so far: a passkey's answer must move its counter on (a replay does not).
  const before = await withPasskeyCounters(store, judged);
  const checked = checkBatchDecision(before, signed, subject, now);
  if (!checked.ok) return { accepted: false, auth: before, reason: checked.reason };
  const replayed = await claimPasskeyCounter(store, signed);
  if (replayed) return { accepted: false, auth: before, reason: replayed };
  await store.appendStatement(meta.contentHash, signed);
  return {
    accepted: true,
    auth: await withPasskeyCounters(
      store,
      judgeBatch(policy.view, await store.readStatements(meta.contentHash), subject, now, opts),
    ),
  };
}

/**
 * Whether a payout may create a bank session: a payout of a batch only when the batch's file is approved
 * (or needs no approval) and the payout is exactly one of its rows; a payout started by hand needs its own
 * approval above the policy's amount. Asked once per payout, before any bank call.
 */
export async function payoutAuthorization(
  dataDir: string,
  policy: Policy,
  input: { batchId?: string; request: PayoutRequest; requested?: boolean },
  now = Date.now(),
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
  if (!(await batchStoreFor(dataDir).exists(batchId)))
    return refused(`batch ${batchId} is not in the batch store`);
  const auth = await batchAuthorization(dataDir, policy, batchId, { ignoreAge: true }, now);
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
  return input.requested ? asked : { kind: 'batch', batchId };
}
