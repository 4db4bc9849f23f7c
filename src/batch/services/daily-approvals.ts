/**
 * The evidence a daily approval limit sums (policy `one_approver_daily_limit`): every approval of the
 * day in the batch store, each re-verified under the policy and checked against its batch's meta, and a
 * cross-check with the Temporal server that the store still holds every batch that passed its approval
 * wait. A store writer who deletes a batch or its record cannot lower an approver's sum: the evidence is
 * then incomplete, and a lone approval needs more approvers until the store is mended.
 */
import type { Client } from '@temporalio/client';
import { checkStatement, moscowDay } from '../../../workflows/shared/approval';
import type {
  BatchStatement,
  DailyEvidence,
  DayApproval,
  PolicyView,
  SignedStatement,
} from '../../../workflows/shared/approval-contract';
import type { StoredBatchMeta } from '../store/files';
import { batchStoreFor } from '../store/open';

/** Where the worker asks which batches ran past their approval wait: its Temporal client and task queue. */
export interface EvidenceSource {
  client: Client;
  taskQueue: string;
}

/** A statement about this very batch that verifies under the policy as it was when it was signed. */
function verifiedAbout(policy: PolicyView, meta: StoredBatchMeta, signed: SignedStatement) {
  const s = signed.statement;
  if (s.kind !== 'batch' || s.batchId !== meta.batchId || s.fileSha256 !== meta.contentHash) return undefined;
  if (s.totalKopecks !== meta.totalKopecks || s.rows !== meta.rowCount) return undefined;
  return checkStatement(policy, signed, Date.parse(s.at)).ok ? s : undefined;
}

/** The day's approvals of one stored batch, and whether its record shows it was submitted and approved. */
function approvalsOf(policy: PolicyView, meta: StoredBatchMeta, statements: SignedStatement[], day: string) {
  const valid = statements.map((s) => verifiedAbout(policy, meta, s)).filter((s): s is BatchStatement => !!s);
  const submitters = new Set(valid.filter((s) => s.decision === 'submit').map((s) => s.person));
  const approvals = valid.filter((s) => s.decision === 'approve' && !submitters.has(s.person));
  const approvers = new Set(approvals.map((s) => s.person));
  const first = new Map<string, string>();
  for (const s of approvals)
    if (!first.has(s.person) || Date.parse(s.at) < Date.parse(first.get(s.person)!))
      first.set(s.person, s.at);
  const ofDay: DayApproval[] = [...first]
    .filter(([, at]) => moscowDay(at) === day)
    .map(([person, at]) => ({
      batchId: meta.batchId,
      person,
      at,
      totalKopecks: meta.totalKopecks,
      alone: approvers.size === 1,
    }));
  return { ofDay, submitted: submitters.size > 0, approved: approvers.size > 0 };
}

/** Batch ids the Temporal server has seen pass their approval wait (or wait for funds after it) since `day` began. */
async function ranPastApproval(source: EvidenceSource, day: string): Promise<Set<string>> {
  const dayStart = new Date(Date.parse(`${day}T00:00:00.000+03:00`)).toISOString();
  const query =
    `WorkflowType = 'batchWorkflow' AND TaskQueue = '${source.taskQueue}' AND ` +
    `PayrunState IN ('paying', 'awaiting_funds') AND ` +
    `(ExecutionStatus = 'Running' OR CloseTime >= '${dayStart}')`;
  const ids = new Set<string>();
  for await (const w of source.client.workflow.list({ query })) ids.add(w.workflowId);
  return ids;
}

/**
 * Every approval of `day` the batch store holds (batches other than `batchId`), verified; `incomplete`
 * says what is missing when the store lacks evidence the Temporal server shows existed.
 */
export async function dailyEvidence(
  dataDir: string,
  policy: PolicyView,
  day: string,
  batchId: string,
  source: EvidenceSource | undefined,
): Promise<DailyEvidence> {
  const store = batchStoreFor(dataDir);
  const approvals: DayApproval[] = [];
  const problems: string[] = [];
  const recorded = new Map<string, { submitted: boolean; approved: boolean }>();
  const later = new Set<string>();
  const dayEnd = Date.parse(`${day}T24:00:00.000+03:00`);
  for (const id of await store.batchIds()) {
    if (id === batchId) continue;
    try {
      const meta = await store.readMeta(id);
      // Submitted after the day: approved after it too.
      if (Date.parse(meta.submittedAt) >= dayEnd) {
        later.add(id);
        continue;
      }
      const found = approvalsOf(policy, meta, await store.readStatements(meta.contentHash), day);
      approvals.push(...found.ofDay);
      recorded.set(id, found);
    } catch (err) {
      problems.push(`batch ${id}'s record could not be read (${(err as Error).message})`);
    }
  }
  if (!source) problems.push('no Temporal server to check the batch store against');
  else {
    const approvalsRequired = policy.rules.submittedNeedApproval && policy.rules.droppedNeedApproval;
    for (const id of await ranPastApproval(source, day)) {
      if (id === batchId || later.has(id)) continue;
      const r = recorded.get(id);
      if (!r) problems.push(`batch ${id} ran past its approval wait but is not in the batch store`);
      else if (!r.submitted) problems.push(`batch ${id}'s record has no verified submit statement`);
      else if (approvalsRequired && !r.approved)
        problems.push(`batch ${id} ran past its approval wait but its record holds no approval`);
    }
  }
  return { day, approvals, ...(problems.length ? { incomplete: problems.slice(0, 3).join('; ') } : {}) };
}
