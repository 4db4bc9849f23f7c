/**
 * "Hosts" for tests of processes that share nothing but Temporal and the PostgreSQL store: each a
 * working directory with its own data and batches folders.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startScratchPostgres, type ScratchPostgres } from './postgres';

/** make test-prod names its engine's payrun database (left running); make test gets a scratch PostgreSQL. */
export async function sharedStorePostgres(): Promise<ScratchPostgres> {
  const given =
    process.env.PAYRUN_BATCH_STORE === 'postgres' ? process.env.PAYRUN_BATCH_STORE_URL : undefined;
  return given ? { url: given, stop: async () => {} } : startScratchPostgres();
}

/** One host under `base`: its folder and the environment its processes run with. */
export function storeHost(base: string, name: string, storeUrl: string) {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    env: {
      PAYRUN_DATA_DIR: join(dir, 'data'),
      PAYRUN_BATCHES_DIR: join(dir, 'batches'),
      PAYRUN_BATCH_STORE: 'postgres',
      PAYRUN_BATCH_STORE_URL: storeUrl,
    },
  };
}
