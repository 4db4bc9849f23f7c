import { loadDataDir } from './process';
import type { Env } from './core';

/** Where batches live on disk (src/batch/services/config.ts resolves them to absolute paths). */
export interface BatchFolderSettings {
  /** PAYRUN_DATA_DIR: the folder batch store is `<dataDir>/store/`. */
  dataDir: string;
  /**
   * PAYRUN_BATCHES_DIR: inbox/, processing/, done/, rejected/; `batches` beside the process, the folders
   * the repository ships with their examples.
   */
  batchesDir: string;
  /** PAYRUN_STOP_LIST: a file of tax numbers never paid (one per line); none by default. */
  stopListFile?: string;
}

export const DEFAULT_BATCHES_DIR = 'batches';

export function loadBatchFolderSettings(env: Env = process.env): BatchFolderSettings {
  const stopListFile = env.PAYRUN_STOP_LIST?.trim() || undefined;
  return {
    dataDir: loadDataDir(env),
    batchesDir: env.PAYRUN_BATCHES_DIR?.trim() || DEFAULT_BATCHES_DIR,
    ...(stopListFile ? { stopListFile } : {}),
  };
}
