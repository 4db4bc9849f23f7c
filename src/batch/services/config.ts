import { resolve } from 'node:path';
import { loadBatchFolderSettings, type Env } from '../../config';

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

/** The settings (PAYRUN_DATA_DIR, PAYRUN_BATCHES_DIR, PAYRUN_STOP_LIST: src/config/batches.ts) as absolute paths. */
export function loadBatchPaths(env?: Env): BatchPaths {
  const s = loadBatchFolderSettings(env);
  return {
    dataDir: resolve(s.dataDir),
    batchesDir: resolve(s.batchesDir),
    ...(s.stopListFile ? { stopListFile: resolve(s.stopListFile) } : {}),
  };
}
