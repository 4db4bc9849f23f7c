import { readFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';
import { createBankClient } from '../bank';
import { loadBatchPaths } from '../batch/services/config';
import { dryRunBatch, dryRunProgressReporter, formatDryRun } from '../batch/commands/dry-run';
import { policyHeadroom } from '../batch/services/headroom';
import { lookupPayout } from '../batch/services/lookup';
import { batchAudit } from '../batch/commands/audit';
import { verdictFromTaxpayerWorkflow } from '../batch/commands/verdicts';
import { moscowTime, t } from '../i18n';
import { SubmitterRefused, subjectOf } from '../batch/services/authorize';
import { sendBatchDecision } from '../batch/commands/decide';
import { retryFailed } from '../batch/commands/retry';
import { largestStoredRows } from '../batch/commands/amounts';
import { reportHere, settleFinished } from '../batch/commands/settle';
import { batchStoreFor } from '../batch/store/open';
import type { BatchStore } from '../batch/store/contract';
import { readMergedOutcomes } from '../batch/store/reads';
import { contentHash } from '../csv';
import { describeError, submitBatch } from '../batch/commands/submit';
import { loadBankConfig, policyPathIfSet } from '../config';
import { requireSigner } from '../policy/credential';
import { loadPolicy } from '../policy/file';
import { signStatement } from '../policy/keys';
import { createLogger } from '../logger';
import { MoneyFormatError, rublesToKopecks } from '../money';
import type { batchWorkflow } from '../../workflows/batch/workflow';
import type { BatchStatement } from '../../workflows/shared/approval-contract';
import {
  batchProgressQuery,
  cancelBatchUpdate,
  DEFAULT_MAX_IN_FLIGHT,
  pauseBatchUpdate,
  resumeBatchUpdate,
} from '../../workflows/batch/contract';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { CliFailure, withClient } from './connect';
import { registerCancelScheduled } from './batch-scheduled';
import { operator, parseMaxInFlight, refusedAsFailure, sendCommand } from './operator';
import { describeCounts, describeProgress, followBatch, LARGEST_SHOWN } from './follow';

interface SubmitFlags {
  partial?: boolean;
  /** Kopecks, parsed by parseExpectTotal. */
  expectTotal?: number;
  approveRequired?: boolean;
  dryRun?: boolean;
  follow?: boolean;
  maxInFlight?: number;
}

/** --expect-total as accounting writes roubles; anything else is a usage error (exit 2) naming the flag. */
/** Why a batch's workflow failed, in the worker's words (the innermost cause); undefined unless it failed. */
async function whyStopped(handle: WorkflowHandle): Promise<string | undefined> {
  if ((await handle.describe()).status.name !== 'FAILED') return undefined;
  try {
    await handle.result();
    return undefined;
  } catch (e) {
    let cause: unknown = e;
    while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
    return cause instanceof Error ? cause.message : String(cause);
  }
}

function parseExpectTotal(value: string): number {
  try {
    return rublesToKopecks(value);
  } catch (err) {
    if (err instanceof MoneyFormatError) throw new InvalidArgumentError(t('submit.expect_total'));
    throw err;
  }
}

/** A submit statement the policy would not verify, as a one-line failure (exit 1) naming the person and why. */
async function refusedSubmitter<T>(submit: () => Promise<T>): Promise<T> {
  try {
    return await submit();
  } catch (err) {
    if (err instanceof SubmitterRefused) throw new CliFailure(err.message);
    throw err;
  }
}

export function registerBatch(program: Command): void {
  const batch = program.command('batch').description('submit batch files and operate running batches');

  batch
    .command('submit')
    .argument('<file>', 'CSV batch file (docs/batch-format.md)')
    .option('--partial', 'pay the valid rows even when some rows are invalid')
    .option(
      '--expect-total <rubles>',
      'control total in rubles (e.g. "14 234,46"); a mismatch rejects the file',
      parseExpectTotal,
    )
    .option(
      '--approve-required',
      'wait for an approver even where the policy does not ask it (payrun batch approve ID)',
    )
    .option(
      '--max-in-flight <n>',
      `payouts in flight at once, 1–500 (default ${DEFAULT_MAX_IN_FLIGHT}, measured: docs/performance.md)`,
      parseMaxInFlight,
    )
    .option('--dry-run', 'validate, check tax numbers and the deposit; pay nothing, create no bank session')
    .option('--follow', 'show a progress bar until the batch is done, then the summary')
    .description('validate a batch file and start paying it; prints the batch id')
    .action(async (file: string, flags: SubmitFlags) => {
      const paths = loadBatchPaths();
      const common = {
        paths,
        policy: flags.partial ? ('partial' as const) : ('whole-file' as const),
        ...(flags.expectTotal !== undefined ? { expectTotalKopecks: flags.expectTotal } : {}),
      };
      if (flags.dryRun) {
        const bank = createBankClient(loadBankConfig(), createLogger('bank'));
        const progress = dryRunProgressReporter(process.stderr);
        try {
          // Temporal too: a reference paid earlier is reported as the real run will report it.
          const report = await withClient((client, taskQueue) =>
            dryRunBatch(bank, file, {
              ...common,
              onProgress: progress.onProgress,
              lookupReference: (reference) => lookupPayout(client, payoutWorkflowId(reference)),
              // Through the payouts' own taxpayer workflows: a submit right after reuses the verdicts.
              checkTaxpayer: (ask) => verdictFromTaxpayerWorkflow(client, taskQueue, ask),
              // Each person's headroom under the policy's limits, from their ledger (read, not reserved).
              headroomOf: policyHeadroom(client, taskQueue),
            }),
          );
          progress.stop();
          for (const line of formatDryRun(report)) console.log(line);
          if (report.rejected) throw new CliFailure(t('submit.would_reject', { file }));
        } finally {
          progress.stop();
          await bank.close();
        }
        return;
      }
      const submitter = requireSigner();
      // The worker's policy file: a submit statement it would not verify starts nothing.
      const whoMayPay = loadPolicy();
      await withClient(async (client, taskQueue) => {
        const batchOptions = {
          ...(flags.approveRequired ? { requireApproval: true } : {}),
          ...(flags.maxInFlight !== undefined ? { maxInFlight: flags.maxInFlight } : {}),
        };
        const r = await refusedSubmitter(() =>
          submitBatch(client, file, { ...common, taskQueue, batchOptions, submitter, whoMayPay }),
        );
        if (r.status === 'rejected') {
          for (const e of r.errors) console.error(describeError(e));
          throw new CliFailure(
            t('cli.rejected', { file, errors: r.errorCount, rejectedPath: r.rejectedPath }),
          );
        }
        if (r.status === 'already_submitted') {
          console.log(t('submit.already', { batchId: r.batchId, firstFile: r.firstFile }));
          return;
        }
        if (r.status === 'resubmitted') {
          console.log(t('submit.resubmitted', { batchId: r.batchId, person: submitter.person }));
          return;
        }
        console.log(r.batchId);
        console.error(t('submit.accepted', { valid: r.valid, total: r.totalKopecks, invalid: r.invalid }));
        console.error(t('submit.by', { person: submitter.person, batchId: r.batchId }));
        if (flags.follow) {
          const result = await followBatch(client, r.batchId);
          // A shared store: the file and its report come to this host's done/, as the watcher brings them.
          await settleFinished(batchStoreFor(paths.dataDir), paths.batchesDir);
          const counts = describeCounts(result.counts, result.amounts);
          console.log(t('submit.followed', { counts, invalid: r.invalid }));
          console.log(t('status.report', { report: result.reportPath, summary: result.summaryPath }));
        }
      });
    });

  batch
    .command('status')
    .argument('<id>', 'batch id')
    .description('phase, counts and amounts by state, failures so far')
    .action(async (id: string) => {
      await withClient(async (client) => {
        const handle = client.workflow.getHandle<typeof batchWorkflow>(id);
        const p = await handle.query(batchProgressQuery);
        const largestRows =
          p.phase === 'awaiting_funds'
            ? await largestStoredRows(batchStoreFor(loadBatchPaths().dataDir), id, LARGEST_SHOWN)
            : undefined;
        for (const line of describeProgress(p, largestRows ? { largestRows } : {})) console.log(line);
        const returned = await returnedRows(batchStoreFor(loadBatchPaths().dataDir), id);
        if (returned.count > 0) console.log(t('return.batch', returned));
        const stopped = await whyStopped(handle);
        if (stopped) console.log(t('status.stopped', { reason: stopped }));
      });
    });

  for (const decision of ['approve', 'reject'] as const)
    batch
      .command(decision)
      .argument('<id>', 'batch id')
      .option('--file <path>', 'the file you reviewed: refused unless it is exactly the batch’s file')
      .option(decision === 'reject' ? '--reason <text>' : '--note <text>', 'why, for the audit trail')
      .description(
        decision === 'approve'
          ? 'approve paying the batch, signed with your key (an approver who did not submit it)'
          : 'reject the batch’s file: nothing of it is paid by any batch until it is approved again',
      )
      .action(async (id: string, flags: { file?: string; reason?: string; note?: string }) => {
        const signer = requireSigner();
        const store = batchStoreFor(loadBatchPaths().dataDir);
        if (!(await store.exists(id)))
          throw new CliFailure(t('decision.not_in_store', { batchId: id, where: store.where }));
        const meta = await store.readMeta(id);
        if (flags.file !== undefined && contentHash(readFileSync(flags.file)) !== meta.contentHash)
          throw new CliFailure(t('decision.file_changed', { file: flags.file, batchId: id }));
        const submitted = (await store.readStatements(meta.contentHash)).find(
          (s) =>
            s.statement.kind === 'batch' && s.statement.decision === 'submit' && s.statement.batchId === id,
        );
        if (decision === 'approve' && submitted?.statement.person === signer.person)
          throw new CliFailure(t('decision.own_batch', { person: signer.person }));
        const signed = signStatement<BatchStatement>(signer, {
          kind: 'batch',
          decision,
          ...subjectOf(meta),
          ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
        });
        await withClient(async (client) => {
          const answer = await refusedAsFailure(id, () => sendBatchDecision(client, id, signed));
          console.log(`${id}: ${answer}`);
        });
      });

  batch
    .command('audit')
    .argument('<id>', 'batch id')
    .option('--json', 'print the entries as JSON')
    .description('who submitted, approved, rejected, paused, cancelled, when, and the evidence checked')
    .action(async (id: string, flags: { json?: boolean }) => {
      const { dataDir } = loadBatchPaths();
      const store = batchStoreFor(dataDir);
      if (!(await store.exists(id)))
        throw new CliFailure(t('decision.not_in_store', { batchId: id, where: store.where }));
      const policy = policyPathIfSet() ? loadPolicy() : undefined;
      const entries = await withClient((client) => batchAudit(client, dataDir, policy, id));
      if (flags.json) return console.log(JSON.stringify(entries, null, 2));
      for (const e of entries)
        console.log(
          t('audit.line', {
            at: moscowTime(e.at),
            batchId: e.batchId,
            what: t('audit.what', { what: e.what }),
            by: `${e.by}${e.name ? ` (${e.name})` : ''}`,
            evidence: e.evidence,
            ...(e.note ? { note: e.note } : {}),
          }),
        );
    });

  const commands = {
    pause: [pauseBatchUpdate, 'start no new payouts (those in flight finish)'],
    resume: [resumeBatchUpdate, 'start payouts again after pause'],
    cancel: [
      cancelBatchUpdate,
      'start no new payouts and cancel those in flight where the bank still allows',
    ],
  } as const;
  for (const [name, [update, description]] of Object.entries(commands)) {
    batch
      .command(name)
      .argument('<id>', 'batch id')
      .option('--by <name>', 'who asks (default: $USER)')
      .option(name === 'cancel' ? '--reason <text>' : '--note <text>', 'why, for the audit trail')
      .description(description)
      .action(async (id: string, flags: { by?: string; reason?: string; note?: string }) => {
        await withClient(async (client) => {
          const outcome = await sendCommand(client.workflow.getHandle(id), update, operator(flags));
          console.log(`${id}: ${outcome}`);
        });
      });
  }

  batch
    .command('report')
    .argument('<id>', 'batch id')
    .description('where the report is, and the summary')
    .action(async (id: string) => {
      const paths = loadBatchPaths();
      const store = batchStoreFor(paths.dataDir);
      const final = await store.readFinal(id);
      if (!final) throw new CliFailure(t('cli.no_report_yet', { batchId: id }));
      // A store shared across hosts: the report is fetched into this host's done/ when it is not here.
      const here = await reportHere(store, paths.batchesDir, id, final);
      console.log(
        `${t('status.report', { report: here.reportPath, summary: here.summaryPath })}\n${final.summary}`,
      );
    });

  registerCancelScheduled(batch);

  batch
    .command('retry-failed')
    .argument('<id>', 'a finished batch id')
    .option('--follow', 'show a progress bar until the retry is done')
    .description('a new batch of only the rows whose payout failed, was rejected, expired or was cancelled')
    .action(async (id: string, flags: { follow?: boolean }) => {
      const submitter = requireSigner();
      const whoMayPay = loadPolicy();
      await withClient(async (client, taskQueue) => {
        const r = await refusedSubmitter(() =>
          retryFailed(client, id, { paths: loadBatchPaths(), taskQueue, submitter, whoMayPay }),
        );
        console.log(r.batchId);
        console.error(t('retry.started', { rows: r.rows, total: r.totalKopecks, from: id }));
        if (flags.follow) {
          const result = await followBatch(client, r.batchId);
          console.log(describeCounts(result.counts, result.amounts));
          console.log(t('submit.report', { report: result.reportPath }));
        }
      });
    });
}

/** Rows the recipient's bank sent back after the batch ended (their return workflows marked them in the store). */
async function returnedRows(store: BatchStore, batchId: string): Promise<{ count: number; kopecks: number }> {
  if (!(await store.exists(batchId))) return { count: 0, kopecks: 0 };
  const returned = [...(await readMergedOutcomes(store, batchId)).values()].filter(
    (o) => o.state === 'returned',
  );
  return { count: returned.length, kopecks: returned.reduce((s, o) => s + o.amount, 0) };
}
