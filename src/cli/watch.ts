import type { Command } from 'commander';
import { loadBatchPaths } from '../batch/services/config';
import { watchInbox, type WatchEvent } from '../batch/commands/watch';
import { requireSigner } from '../policy/credential';
import { loadPolicy, PolicySource } from '../policy/file';
import { loadTemporalSetup } from '../temporal';
import { submitQueueOf } from '../../workflows/recurring-payrun/contract';
import { t } from '../i18n';
import { withClient } from './connect';
import { WATCH_INTERVAL_SECONDS, wholeNumberIn } from './numbers';
import type { PeriodSubmitterDeps } from '../schedules/submit-period';

/** One line per file the watcher took, in the language set (PAYRUN_LANG). */
const describe = (e: WatchEvent): string => {
  switch (e.kind) {
    case 'submitted':
      return t('watch.submitted', { file: e.file, batchId: e.batchId });
    case 'rejected':
      return t('watch.rejected', { file: e.file, errors: e.errors, errorsPath: e.errorsPath });
    case 'already_submitted':
      return t('watch.already_submitted', { file: e.file, batchId: e.batchId });
    case 'resubmitted':
      return t('watch.resubmitted', { file: e.file, batchId: e.batchId });
    case 'settled':
      return t('watch.settled', { file: e.file, batchId: e.batchId });
    case 'error':
      return t('watch.error', { file: e.file, message: e.message });
  }
};

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('poll batches/inbox/ (PAYRUN_BATCHES_DIR) and submit every file once it stops changing')
    .option(
      '--interval <seconds>',
      `seconds between two looks at the inbox (${WATCH_INTERVAL_SECONDS.min}–${WATCH_INTERVAL_SECONDS.max})`,
      wholeNumberIn(WATCH_INTERVAL_SECONDS),
      5,
    )
    .option('--partial', 'pay the valid rows of files with invalid rows')
    .action(async (flags: { interval: number; partial?: boolean }) => {
      const paths = loadBatchPaths();
      // A service identity (PAYRUN_PERSON, PAYRUN_KEY_FILE): it submits dropped files and can never approve them.
      const submitter = requireSigner();
      // The worker's policy: the watcher's own submit statements must verify under it, or nothing starts.
      const whoMayPay = loadPolicy();
      const abort = new AbortController();
      process.once('SIGINT', () => abort.abort());
      process.once('SIGTERM', () => abort.abort());
      console.log(t('watch.start', { inbox: `${paths.batchesDir}/inbox`, seconds: flags.interval }));
      await withClient(async (client, taskQueue) => {
        // Recurring payruns' periods are submitted here too: this process has the folders and the key.
        const submitting = await serveSchedules(abort, {
          client,
          paths,
          taskQueue,
          submitter,
          policy: new PolicySource(),
        });
        try {
          await watchInbox(client, {
            paths,
            taskQueue,
            submitter,
            whoMayPay,
            source: 'inbox',
            policy: flags.partial ? 'partial' : 'whole-file',
            intervalMs: flags.interval * 1000,
            signal: abort.signal,
            onEvent: (e) => (e.kind === 'error' ? console.error(describe(e)) : console.log(describe(e))),
          });
        } finally {
          await submitting.stop();
        }
      });
    });
}

/**
 * The submit queue's worker, running until `stop`; if it fails, the watcher stops too (a watcher that
 * silently stopped submitting periods would leave them waiting unseen). Loaded only here: the rest of
 * the command line never loads the worker's native bridge.
 */
async function serveSchedules(abort: AbortController, deps: PeriodSubmitterDeps) {
  const setup = loadTemporalSetup();
  // The SDK's own logs through payrun's logger at TEMPORAL_LOG_LEVEL, as `payrun worker`'s go: without it
  // the SDK prints its English text ("Worker state changed") among the lines this command says to people.
  const { installTemporalRuntime } = await import('../worker/runtime');
  installTemporalRuntime();
  const { connectNative } = await import('../temporal/worker-options');
  const { createSubmitterWorker } = await import('../worker/submitter');
  const connection = await connectNative(setup);
  const worker = await createSubmitterWorker(setup, connection, deps);
  console.log(t('recurring.submit_worker', { queue: submitQueueOf(deps.taskQueue) }));
  let failed: unknown;
  const running = worker.run().catch((err: unknown) => {
    failed = err;
    abort.abort();
  });
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      if (failed) throw failed;
    },
  };
}
