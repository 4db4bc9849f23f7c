/**
 * The batch store this process is configured for (src/config/batch-store.ts): one per process and
 * configuration, so PostgreSQL connections are pooled and shared by every caller.
 */
import { resolve } from 'node:path';
import type { Env } from '../../config';
import { loadBatchStoreConfig } from '../../config/batch-store';
import type { BatchStore } from './contract';
import { FolderBatchStore } from './folder';
import { PostgresBatchStore } from './postgres';

const opened = new Map<string, BatchStore>();

/**
 * `dataDir` is the folder store's place, and, for PostgreSQL, whose payload keys seal the values
 * (configured keys first) and nothing else.
 */
export function batchStoreFor(dataDir: string, env?: Env): BatchStore {
  const config = loadBatchStoreConfig(env);
  const dir = resolve(dataDir);
  const key = config.kind === 'folder' ? `folder\0${dir}` : `postgres\0${config.url}\0${dir}`;
  let store = opened.get(key);
  if (!store) {
    store =
      config.kind === 'folder'
        ? new FolderBatchStore(dir)
        : new PostgresBatchStore(config.url, dir, config.describe);
    opened.set(key, store);
  }
  return store;
}

/** Closes every store this process opened (a command line that must exit, a test's end). */
export async function closeBatchStores(): Promise<void> {
  const stores = [...opened.values()];
  opened.clear();
  await Promise.all(stores.map((s) => s.close()));
}
