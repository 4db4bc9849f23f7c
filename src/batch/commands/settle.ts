/**
 * The folder side of a finished batch when the batch store is shared across hosts (PostgreSQL): the
 * worker that wrote the report cannot reach the watcher's folders, so the watcher moves the file from
 * processing/ to done/ and puts the report and summary beside it; a command line or console on any
 * other host fetches them into its own done/ when asked. With the folder store the worker does it all.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { contentHash } from '../../csv';
import { batchWorkflowId, type BatchFinal } from '../../../workflows/batch/contract';
import { batchFolders, moveFile } from '../services/folders';
import type { BatchStore } from '../store/contract';

/**
 * The report and summary of a finished batch on this host: where the final says with the folder store;
 * with a shared store, in this host's done/ (PAYRUN_BATCHES_DIR), fetched from the store when missing.
 * The final's paths are the watcher's host's: another host may have the same paths meaning other files.
 */
export async function reportHere(
  store: BatchStore,
  batchesDir: string,
  batchId: string,
  final: BatchFinal,
): Promise<{ reportPath: string; summaryPath: string }> {
  if (store.sharesFolders) return { reportPath: final.reportPath, summaryPath: final.summaryPath };
  const { done } = batchFolders(batchesDir);
  const reportPath = join(done, basename(final.reportPath));
  const summaryPath = join(done, basename(final.summaryPath));
  if (existsSync(reportPath) && existsSync(summaryPath) && resolve(reportPath) === resolve(final.reportPath))
    return { reportPath, summaryPath };
  if (!(await store.fetchFile(batchId, 'report', reportPath)))
    throw new Error(`the report of batch ${batchId} is not in the batch store (${store.where})`);
  await store.fetchFile(batchId, 'summary', summaryPath);
  return { reportPath, summaryPath };
}

/** A file's batch id, hashed once per version of the file: a large file waits in processing/ for hours. */
const ids = new Map<string, { stamp: string; batchId: string }>();
function batchIdOf(file: string): string {
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
  const known = ids.get(file);
  if (known?.stamp === stamp) return known.batchId;
  const batchId = batchWorkflowId(contentHash(readFileSync(file)));
  if (ids.size >= 1000) ids.clear();
  ids.set(file, { stamp, batchId });
  return batchId;
}

/**
 * For every file in processing/ whose batch has finished: its report and summary into done/, then
 * the file itself (last, so a file in done/ always has its report). Returns the files settled and their batches.
 */
export async function settleFinished(
  store: BatchStore,
  batchesDir: string,
): Promise<Array<{ file: string; batchId: string }>> {
  if (store.sharesFolders) return [];
  const { processing, done } = batchFolders(batchesDir);
  const settled: Array<{ file: string; batchId: string }> = [];
  for (const name of readdirSync(processing).sort()) {
    const file = join(processing, name);
    const batchId = batchIdOf(file);
    const final = await store.readFinal(batchId);
    if (!final) continue;
    const meta = await store.readMeta(batchId);
    await reportHere(store, batchesDir, batchId, final);
    moveFile(file, join(done, meta.doneName ?? name));
    settled.push({ file, batchId });
  }
  return settled;
}
