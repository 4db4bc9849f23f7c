/**
 * A finished batch's report as a test on this host sees it, whichever batch store the run uses
 * (PAYRUN_BATCH_STORE): the folder store's worker writes it into done/ itself; with a shared store
 * (PostgreSQL) the worker keeps it in the store and the watcher settles it into done/, so the test
 * does what the watcher does (src/batch/commands/settle.ts) before it reads the file.
 */
import type { BatchPaths } from '../../src/batch/services/config';
import { reportHere, settleFinished } from '../../src/batch/commands/settle';
import { batchStoreFor } from '../../src/batch/store/open';
import type { BatchFinal } from '../../workflows/batch/contract';

/** The path of the batch's report in this host's done/ (fetched from a shared store when needed). */
export async function reportPathOf(paths: BatchPaths, batchId: string, final: BatchFinal): Promise<string> {
  const store = batchStoreFor(paths.dataDir);
  if (store.sharesFolders) return final.reportPath;
  return one(async () => {
    await settleFinished(store, paths.batchesDir);
    return (await reportHere(store, paths.batchesDir, batchId, final)).reportPath;
  });
}

/** One settling at a time, as the single watcher does: two at once would both move the same file. */
let settling: Promise<unknown> = Promise.resolve();
function one<T>(work: () => Promise<T>): Promise<T> {
  const run = settling.then(work, work);
  settling = run.catch(() => undefined);
  return run;
}

/** Whether this run's batch store is the folder one (its worker settles done/; no watcher needed). */
export const folderStore = (paths: BatchPaths): boolean => batchStoreFor(paths.dataDir).sharesFolders;

/** What the watcher does first on each poll with a shared store: finished batches' files into done/. */
export async function settleAsWatcher(paths: BatchPaths): Promise<void> {
  await one(() => settleFinished(batchStoreFor(paths.dataDir), paths.batchesDir));
}
