import type { Command } from 'commander';
import { loadBatchPaths } from '../batch/config';
import { watchInbox, type WatchEvent } from '../batch/watch';
import { requireSigner } from '../policy/credential';
import { withClient } from './connect';
import { WATCH_INTERVAL_SECONDS, wholeNumberIn } from './numbers';

const describe = (e: WatchEvent): string => {
  switch (e.kind) {
    case 'submitted':
      return `${e.file}: submitted as ${e.batchId}`;
    case 'rejected':
      return `${e.file}: rejected (${e.errors} error(s), see ${e.errorsPath}); nothing paid`;
    case 'already_submitted':
      return `${e.file}: already submitted as ${e.batchId}; nothing paid twice`;
    case 'error':
      return `${e.file}: could not submit: ${e.message}`;
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
      const abort = new AbortController();
      process.once('SIGINT', () => abort.abort());
      process.once('SIGTERM', () => abort.abort());
      console.log(`watching ${paths.batchesDir}/inbox every ${flags.interval} s (Ctrl-C stops)`);
      await withClient((client, taskQueue) =>
        watchInbox(client, {
          paths,
          taskQueue,
          submitter,
          source: 'inbox',
          policy: flags.partial ? 'partial' : 'whole-file',
          intervalMs: flags.interval * 1000,
          signal: abort.signal,
          onEvent: (e) => (e.kind === 'error' ? console.error(describe(e)) : console.log(describe(e))),
        }),
      );
    });
}
