/**
 * The audit trail of a batch: who submitted, approved, rejected, paused, resumed and cancelled it, when,
 * and what proves it. Signed statements come from the batch store (checked again here under the current
 * policy); named commands from each batch run's own record, which it carries over continue-as-new.
 * Retries are followed back to the first batch of the file.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { checkStatement } from '../../../workflows/shared/approval';
import type { BatchStatement } from '../../../workflows/shared/approval-contract';
import { batchProgressQuery, type BatchProgress } from '../../../workflows/batch/contract';
import type { Policy } from '../../policy/file';
import { outcomeChain } from '../store/outcome-index';
import { batchStoreFor } from '../store/open';

export interface AuditEntry {
  at: string;
  batchId: string;
  what: 'submit' | 'approve' | 'reject' | 'pause' | 'resume' | 'cancel' | 'paying';
  /** A person id, or the name a caller gave. */
  by: string;
  /** The person's display name from the policy, when known. */
  name?: string;
  /** What makes this entry believable: a checked signature, or that it is only a name. */
  evidence: string;
  /** Whether it counts (a signed statement that checks out). */
  counts: boolean;
  note?: string;
}

async function progressOf(client: Client, batchId: string): Promise<BatchProgress | undefined> {
  try {
    return await client.workflow.getHandle(batchId).query(batchProgressQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

export async function batchAudit(
  client: Client,
  dataDir: string,
  policy: Policy | undefined,
  batchId: string,
  now = Date.now(),
): Promise<AuditEntry[]> {
  const store = batchStoreFor(dataDir);
  // The batches of the file from the first to `batchId`, following each retry to the batch it retried.
  const ids = await outcomeChain(store, batchId);
  const meta = await store.readMeta(batchId);
  const entries: AuditEntry[] = [];
  const nameOf = (id: string) => policy?.names.get(id);
  for (const signed of await store.readStatements(meta.contentHash)) {
    const s = signed.statement as BatchStatement;
    if (s.kind !== 'batch' || (!ids.includes(s.batchId) && s.decision !== 'reject')) continue;
    const checked = policy ? checkStatement(policy.view, signed, now) : undefined;
    const signer = signed.passkey
      ? `${s.person}'s passkey`
      : s.via
        ? `${s.via} signing for ${s.person}`
        : `${s.person}'s own key`;
    entries.push({
      at: s.at,
      batchId: s.batchId,
      what: s.decision,
      by: s.person,
      ...(nameOf(s.person) ? { name: nameOf(s.person) } : {}),
      evidence: !checked
        ? 'signed; not checked here (PAYRUN_POLICY_FILE is not set)'
        : checked.ok
          ? `signature checked: ${signer}, policy ${policy!.view.version}`
          : `does not count now: ${checked.reason}`,
      counts: checked?.ok ?? false,
      ...(s.reason ? { note: s.reason } : s.source ? { note: `via ${s.source}` } : {}),
    });
  }
  for (const id of ids) {
    const progress = await progressOf(client, id);
    if (progress?.approval?.at)
      entries.push({
        at: progress.approval.at,
        batchId: id,
        what: 'paying',
        by: progress.approval.by ?? '',
        evidence: 'the batch judged its file’s record under the worker’s policy',
        counts: true,
      });
    for (const c of progress?.commands ?? []) {
      if (c.command === 'approve' || c.command === 'reject') continue; // the signed statements above
      entries.push({
        at: c.at,
        batchId: id,
        what: c.command,
        by: c.by,
        ...(nameOf(c.by) ? { name: nameOf(c.by) } : {}),
        evidence: 'a name as the caller gave it (not proven)',
        counts: true,
        note: c.note ? `${c.answer}; ${c.note}` : c.answer,
      });
    }
  }
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
