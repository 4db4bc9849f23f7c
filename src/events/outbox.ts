/**
 * The durable outbox: each event one file, written by the activity that records what happened (the
 * batch's outcome recording, its decision, its report) before that activity completes, so an event is
 * on disk before the workflow moves on, and a worker that dies after the write loses nothing. Delivery
 * reads it per endpoint (src/events/deliver.ts) and marks what each endpoint took.
 *
 *   <dataDir>/events/outbox/<id>.json           the event, written once (a second write of an id is a no-op)
 *   <dataDir>/events/delivered/<endpoint>/<id>  the endpoint answered 2xx
 *   <dataDir>/events/dead/<endpoint>/<id>       three days of failures: given up, `payrun events replay` resends
 */
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import type { PayrunEvent } from './body';

export const eventsDir = (dataDir: string) => join(dataDir, 'events');
const outboxDir = (dataDir: string) => join(eventsDir(dataDir), 'outbox');
const markDir = (dataDir: string, kind: 'delivered' | 'dead', endpoint: string) =>
  join(eventsDir(dataDir), kind, endpoint);

export interface OutboxEntry {
  event: PayrunEvent;
  /** When it reached the outbox (ms): how long it has waited, for the outbox-age metric. */
  writtenAt: number;
}

/** Writes each event once: a complete file appears under its id, or nothing (temp file, then link). */
export function writeEvents(dataDir: string, events: PayrunEvent[]): number {
  if (events.length === 0) return 0;
  const dir = outboxDir(dataDir);
  ensurePrivateDir(dir);
  let written = 0;
  for (const event of events) {
    const file = join(dir, `${event.id}.json`);
    if (existsSync(file)) continue;
    const tmp = `${file}.${process.pid}.tmp`;
    writePrivateFile(tmp, JSON.stringify({ event, writtenAt: Date.now() } satisfies OutboxEntry));
    try {
      linkSync(tmp, file); // fails if another attempt won: the same id holds the same event
      written++;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  return written;
}

const ids = (dir: string) =>
  existsSync(dir) ? new Set(readdirSync(dir).filter((f) => !f.endsWith('.tmp'))) : new Set<string>();

/**
 * An endpoint's events not yet delivered nor given up, in the order they happened: by time, then by
 * sequence, so one payout's events go in its own order.
 */
export function pendingFor(
  dataDir: string,
  endpoint: string,
  wants: (e: PayrunEvent) => boolean,
): OutboxEntry[] {
  const done = ids(markDir(dataDir, 'delivered', endpoint));
  const dead = ids(markDir(dataDir, 'dead', endpoint));
  const out: OutboxEntry[] = [];
  for (const f of ids(outboxDir(dataDir))) {
    const id = f.replace(/\.json$/, '');
    if (done.has(id) || dead.has(id)) continue;
    const entry = JSON.parse(readFileSync(join(outboxDir(dataDir), f), 'utf8')) as OutboxEntry;
    if (wants(entry.event)) out.push(entry);
  }
  return out.sort(
    (a, b) =>
      a.event.occurredAt.localeCompare(b.event.occurredAt) ||
      a.event.sequence - b.event.sequence ||
      a.event.id.localeCompare(b.event.id),
  );
}

export function mark(dataDir: string, kind: 'delivered' | 'dead', endpoint: string, id: string): void {
  const dir = markDir(dataDir, kind, endpoint);
  ensurePrivateDir(dir);
  writePrivateFile(join(dir, id), '');
}

/**
 * `payrun events replay`: the endpoint's events that happened at or after `since` become pending again
 * (delivered and given-up marks removed); they go out under their own ids. Returns how many.
 */
export function reopen(dataDir: string, endpoint: string, sinceIso: string): number {
  let n = 0;
  for (const f of ids(outboxDir(dataDir))) {
    const entry = JSON.parse(readFileSync(join(outboxDir(dataDir), f), 'utf8')) as OutboxEntry;
    if (entry.event.occurredAt < sinceIso) continue;
    const id = entry.event.id;
    for (const kind of ['delivered', 'dead'] as const) {
      const file = join(markDir(dataDir, kind, endpoint), id);
      if (existsSync(file)) {
        rmSync(file, { force: true }); // a replay beside another may have reopened it already
        if (kind === 'delivered') n++;
      }
    }
  }
  return n;
}

/** How long the endpoint's oldest pending event has waited, in seconds (0 when none waits). */
export function oldestAgeSeconds(pending: OutboxEntry[], now = Date.now()): number {
  if (pending.length === 0) return 0;
  return Math.max(0, (now - Math.min(...pending.map((p) => p.writtenAt))) / 1000);
}

export const outboxExists = (dataDir: string) =>
  existsSync(outboxDir(dataDir)) && statSync(outboxDir(dataDir)).isDirectory();
