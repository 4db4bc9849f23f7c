import { resolve } from 'node:path';

/**
 * Where batches live on disk. The submitter writes the batch store and the worker's activities read
 * it, so in production PAYRUN_DATA_DIR and PAYRUN_BATCHES_DIR are one shared volume for both
 * (docker-compose.yml mounts ./batches).
 */
export interface BatchPaths {
  /** The batch store is `<dataDir>/store/<batchId>/`. */
  dataDir: string;
  /** inbox/, processing/, done/, rejected/ live here. */
  batchesDir: string;
  /** Optional stop-list file (one INN per line). */
  stopListFile?: string;
}

export function loadBatchPaths(env: Record<string, string | undefined> = process.env): BatchPaths {
  return {
    dataDir: resolve(env.PAYRUN_DATA_DIR || '.payrun'),
    batchesDir: resolve(env.PAYRUN_BATCHES_DIR || 'batches'),
    ...(env.PAYRUN_STOP_LIST ? { stopListFile: resolve(env.PAYRUN_STOP_LIST) } : {}),
  };
}
