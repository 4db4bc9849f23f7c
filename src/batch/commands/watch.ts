import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { batchFolders } from '../services/folders';
import { settleFinished } from './settle';
import { batchStoreFor } from '../store/open';
import { submitBatch, type SubmitOptions } from './submit';

export type WatchEvent =
  | { kind: 'submitted'; file: string; batchId: string }
  | { kind: 'rejected'; file: string; batchId: string; errors: number; errorsPath: string }
  | { kind: 'already_submitted'; file: string; batchId: string }
  | { kind: 'resubmitted'; file: string; batchId: string }
  | { kind: 'settled'; file: string; batchId: string }
  | { kind: 'error'; file: string; message: string };

/** Excel lock files, partial downloads and uploads, hidden files: never batches. */
export function isTempName(name: string): boolean {
  return name.startsWith('~$') || name.startsWith('.') || /\.(tmp|part)$/i.test(name);
}

/**
 * Polls the inbox (fs.watch misses events on network shares). A file is taken only when its size and
 * mtime are the same on two polls in a row, so a file still being copied is left alone.
 */
export class InboxWatcher {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly client: Client,
    private readonly opts: SubmitOptions,
  ) {}

  async pollOnce(): Promise<WatchEvent[]> {
    const { inbox } = batchFolders(this.opts.paths.batchesDir);
    const events: WatchEvent[] = [];
    const present = new Set<string>();
    for (const name of readdirSync(inbox).sort()) {
      if (isTempName(name)) continue;
      const file = join(inbox, name);
      let stamp: string;
      try {
        const st = statSync(file);
        if (!st.isFile()) continue;
        stamp = `${st.size}:${st.mtimeMs}`;
      } catch {
        continue; // gone between readdir and stat
      }
      present.add(name);
      if (this.seen.get(name) !== stamp) {
        this.seen.set(name, stamp); // new or still changing: look again next poll
        continue;
      }
      this.seen.delete(name);
      events.push(await this.take(file));
    }
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
    // A store shared across hosts: finished batches' files and reports come to done/ here.
    try {
      const store = batchStoreFor(this.opts.paths.dataDir);
      for (const s of await settleFinished(store, this.opts.paths.batchesDir))
        events.push({ kind: 'settled', file: s.file, batchId: s.batchId });
    } catch (err) {
      events.push({
        kind: 'error',
        file: 'processing/',
        message: err instanceof Error ? err.message : String(err),
      });
    }
    return events;
  }

  private async take(file: string): Promise<WatchEvent> {
    try {
      const r = await submitBatch(this.client, file, this.opts);
      if (r.status === 'started') return { kind: 'submitted', file, batchId: r.batchId };
      if (r.status === 'rejected')
        return {
          kind: 'rejected',
          file,
          batchId: r.batchId,
          errors: r.errorCount,
          errorsPath: r.errorsPath,
        };
      if (r.status === 'resubmitted') return { kind: 'resubmitted', file, batchId: r.batchId };
      return { kind: 'already_submitted', file, batchId: r.batchId };
    } catch (err) {
      return { kind: 'error', file, message: err instanceof Error ? err.message : String(err) };
    }
  }
}

/** Polls every `intervalMs` until `signal` aborts; each event goes to `onEvent`. */
export async function watchInbox(
  client: Client,
  opts: SubmitOptions & { intervalMs: number; signal?: AbortSignal; onEvent: (e: WatchEvent) => void },
): Promise<void> {
  const watcher = new InboxWatcher(client, opts);
  while (!opts.signal?.aborted) {
    for (const e of await watcher.pollOnce()) opts.onEvent(e);
    await pause(opts.intervalMs, opts.signal);
  }
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener on the signal behind (node's timer removes it). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e;
  }
}
