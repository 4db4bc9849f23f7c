import type { Command } from 'commander';
import { createBankClient } from '../bank';
import { loadBatchPaths } from '../batch/config';
import { dryRunBatch, dryRunProgressReporter, formatDryRun } from '../batch/dry-run';
import { lookupPayout } from '../batch/lookup';
import { retryFailed } from '../batch/retry';
import { readFinal } from '../batch/store';
import { describeError, submitBatch } from '../batch/submit';
import { loadBankConfig } from '../config';
import { createLogger } from '../logger';
import { formatRubles, rublesToKopecks } from '../money';
import type { batchWorkflow } from '../../workflows/batch';
import {
  approveBatchUpdate,
  batchProgressQuery,
  cancelBatchUpdate,
  DEFAULT_MAX_IN_FLIGHT,
  pauseBatchUpdate,
  resumeBatchUpdate,
} from '../../workflows/contracts/batch';
import { payoutWorkflowId } from '../../workflows/contracts/payout';
import { CliFailure, withClient } from './connect';
import { operator, parseMaxInFlight, sendCommand } from './operator';
import { describeCounts, describeProgress, followBatch } from './follow';

interface SubmitFlags {
  partial?: boolean;
  expectTotal?: string;
  approveRequired?: boolean;
  dryRun?: boolean;
  follow?: boolean;
  maxInFlight?: number;
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
    )
    .option('--approve-required', 'pay nothing until `payrun batch approve ID`')
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
        ...(flags.expectTotal !== undefined
          ? { expectTotalKopecks: rublesToKopecks(flags.expectTotal) }
          : {}),
      };
      if (flags.dryRun) {
        const bank = createBankClient(loadBankConfig(), createLogger('bank'));
        const progress = dryRunProgressReporter(process.stderr);
        try {
          // Temporal too: a reference paid earlier is reported as the real run will report it.
          const report = await withClient((client) =>
            dryRunBatch(bank, file, {
              ...common,
              onProgress: progress.onProgress,
              lookupReference: (reference) => lookupPayout(client, payoutWorkflowId(reference)),
            }),
          );
          progress.stop();
          for (const line of formatDryRun(report)) console.log(line);
          if (report.rejected) throw new CliFailure(`${file} would be rejected`);
        } finally {
          progress.stop();
          await bank.close();
        }
        return;
      }
      await withClient(async (client, taskQueue) => {
        const batchOptions = {
          ...(flags.approveRequired ? { requireApproval: true } : {}),
          ...(flags.maxInFlight !== undefined ? { maxInFlight: flags.maxInFlight } : {}),
        };
        const r = await submitBatch(client, file, { ...common, taskQueue, batchOptions });
        if (r.status === 'rejected') {
          for (const e of r.errors) console.error(describeError(e));
          throw new CliFailure(
            `${file} rejected: ${r.errors.length} error(s), nothing paid; moved to ${r.rejectedPath}`,
          );
        }
        if (r.status === 'already_submitted') {
          console.log(`${r.batchId}: already submitted (as ${r.firstFile}); nothing is paid twice`);
          return;
        }
        console.log(r.batchId);
        console.error(`${r.valid} valid rows (${formatRubles(r.totalKopecks)} RUB), ${r.invalid} invalid`);
        if (flags.follow) {
          const result = await followBatch(client, r.batchId);
          console.log(
            `${describeCounts(result.counts, result.amounts)}${r.invalid ? `, invalid ${r.invalid} (not paid)` : ''}\nreport ${result.reportPath}\nsummary ${result.summaryPath}`,
          );
        }
      });
    });

  batch
    .command('status')
    .argument('<id>', 'batch id')
    .description('phase, counts and amounts by state, failures so far')
    .action(async (id: string) => {
      await withClient(async (client) => {
        const p = await client.workflow.getHandle<typeof batchWorkflow>(id).query(batchProgressQuery);
        for (const line of describeProgress(p)) console.log(line);
      });
    });

  const commands = {
    approve: [approveBatchUpdate, 'approve paying the batch (when submitted with --approve-required)'],
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
      const final = readFinal(loadBatchPaths().dataDir, id);
      if (!final) throw new CliFailure(`batch ${id} has no report yet (payrun batch status ${id} shows why)`);
      console.log(`report ${final.reportPath}\nsummary ${final.summaryPath}\n${final.summary}`);
    });

  batch
    .command('retry-failed')
    .argument('<id>', 'a finished batch id')
    .option('--follow', 'show a progress bar until the retry is done')
    .description('a new batch of only the rows whose payout failed, was rejected, expired or was cancelled')
    .action(async (id: string, flags: { follow?: boolean }) => {
      await withClient(async (client, taskQueue) => {
        const r = await retryFailed(client, id, { paths: loadBatchPaths(), taskQueue });
        console.log(r.batchId);
        console.error(`${r.rows} rows (${formatRubles(r.totalKopecks)} RUB) retried from ${id}`);
        if (flags.follow) {
          const result = await followBatch(client, r.batchId);
          console.log(`${describeCounts(result.counts, result.amounts)}\nreport ${result.reportPath}`);
        }
      });
    });
}
