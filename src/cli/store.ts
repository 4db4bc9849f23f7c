import type { Command } from 'commander';
import { loadBatchPaths } from '../batch/services/config';
import { migrate } from '../batch/store/postgres';
import { resealStore } from '../batch/store/reseal';
import { batchStoreFor, closeBatchStores } from '../batch/store/open';
import { loadBatchStoreConfig } from '../config';
import { t } from '../i18n';
import { CliFailure } from './connect';

/** `payrun store seal`: the batch store's one migration (docs/batches.md, "The batch store"). */
export function registerStore(program: Command): void {
  const store = program.command('store').description('the batch store (folder or PostgreSQL)');
  store
    .command('seal')
    .description(
      'seal every entry written before entries were bound to their batch, file and place (plain JSON, payrun-enc:v1); stop workers, watchers and consoles first',
    )
    .action(async () => {
      const { dataDir } = loadBatchPaths();
      try {
        const counts = await resealStore(batchStoreFor(dataDir), dataDir);
        console.log(t('store.sealed', { resealed: counts.resealed, current: counts.current }));
        if (counts.failed.length > 0)
          throw new CliFailure(
            t('store.seal_failed', { count: counts.failed.length, first: counts.failed[0]! }),
          );
      } finally {
        await closeBatchStores();
      }
    });
  // Every process migrates before its first query anyway; the Helm chart's Job runs this before an upgrade's
  // new processes start, so a migration that fails stops the upgrade instead of every new pod.
  store
    .command('migrate')
    .description("bring the PostgreSQL batch store's tables up to date (node-pg-migrate, under its lock)")
    .action(async () => {
      const config = loadBatchStoreConfig();
      if (config.kind !== 'postgres') throw new CliFailure(t('store.migrate_folder'));
      await migrate(config.url);
      console.log(t('store.migrated', { where: config.describe }));
    });
}
