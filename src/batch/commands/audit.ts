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
import { currentLang, t, type Lang } from '../../i18n';
import { approvalReason, commandAnswer } from '../../i18n/operator-answers';

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

/** Who allowed paying, as the batch noted it (workflows/batch/run.ts): approvers, or why none was needed. */
function payingBy(by: string, lang: Lang): string {
  const none = /^nobody needed: (.+)$/.exec(by);
  return none ? t('audit.nobody_needed', { why: approvalReason(none[1]!, lang) }, lang) : by;
}

export async function batchAudit(
  client: Client,
  dataDir: string,
  policy: Policy | undefined,
  batchId: string,
  now = Date.now(),
  lang: Lang = currentLang(),
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
      ? t('audit.signer.passkey', { person: s.person }, lang)
      : s.via
        ? t('audit.signer.via', { person: s.person, via: s.via }, lang)
        : t('audit.signer.own', { person: s.person }, lang);
    entries.push({
      at: s.at,
      batchId: s.batchId,
      what: s.decision,
      by: s.person,
      ...(nameOf(s.person) ? { name: nameOf(s.person) } : {}),
      evidence: !checked
        ? t('audit.unchecked', {}, lang)
        : checked.ok
          ? t('audit.checked', { signer, version: policy!.view.version }, lang)
          : t('audit.not_counted', { reason: commandAnswer(checked.reason, lang) }, lang),
      counts: checked?.ok ?? false,
      ...(s.reason
        ? { note: s.reason }
        : s.source
          ? { note: t('audit.via_source', { source: s.source }, lang) }
          : {}),
    });
  }
  for (const id of ids) {
    const progress = await progressOf(client, id);
    if (progress?.approval?.at)
      entries.push({
        at: progress.approval.at,
        batchId: id,
        what: 'paying',
        by: payingBy(progress.approval.by ?? '', lang),
        evidence: t('audit.judged', {}, lang),
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
        evidence: t('audit.named', {}, lang),
        counts: true,
        note: c.note ? `${commandAnswer(c.answer, lang)}; ${c.note}` : commandAnswer(c.answer, lang),
      });
    }
  }
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
