import type { Command } from 'commander';
import { loadBatchPaths } from '../batch/services/config';
import { resealStore } from '../batch/store/reseal';
import { batchStoreFor, closeBatchStores } from '../batch/store/open';
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
}
