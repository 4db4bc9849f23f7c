/**
 * The reconciliation store this process is configured for: the one the batch store is (folder or
 * PostgreSQL, src/config/batch-store.ts), PostgreSQL through the batch store's own pooled connection.
 */
import { basename, join, resolve } from 'node:path';
import type { Env } from '../../config';
import { batchStoreFor } from '../../batch/store/open';
import { PostgresBatchStore } from '../../batch/store/postgres';
import { ensurePrivateDir } from '../../private-fs';
import type { DayOutcome, ReconcileStore } from '../store';
import { FolderReconcileStore } from './folder';
import { PostgresReconcileStore } from './postgres';

export function reconcileStoreFor(dataDir: string, env?: Env): ReconcileStore {
  const dir = resolve(dataDir);
  const batches = batchStoreFor(dir, env);
  return batches instanceof PostgresBatchStore
    ? new PostgresReconcileStore(batches, dir)
    : new FolderReconcileStore(dir);
}

/**
 * A day's outcome with its reports as files on this host: as they lie for the folder store; fetched
 * from a shared store into `<dataDir>/reconciliation/<account>/days/<day>/` (the worker that wrote
 * them may be on another host).
 */
export async function withLocalReports(
  store: ReconcileStore,
  dataDir: string,
  outcome: DayOutcome,
): Promise<DayOutcome> {
  if (store.sharesFolders || !outcome.files) return outcome;
  const dir = join(resolve(dataDir), 'reconciliation', outcome.account, 'days', outcome.day);
  ensurePrivateDir(dir);
  const local = async (name: string) => {
    const to = join(dir, basename(name));
    if (!(await store.fetchReport(outcome.account, outcome.day, basename(name), to)))
      throw new Error(`report ${name} of ${outcome.account} ${outcome.day} is not in ${store.where}`);
    return to;
  };
  const { csv, json, oneC } = outcome.files;
  return { ...outcome, files: { csv: await local(csv), json: await local(json), oneC: await local(oneC) } };
}
