/**
 * What the stores' contract tests (test/batch/, test/reconcile/) share: one scratch PostgreSQL per
 * test file, cleanups after each test, and every byte a store keeps as an operator's backup sees it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startScratchPostgres, type ScratchPostgres } from './postgres';

export interface StoreSubject<S> {
  store: S;
  dir: string;
  /** Every byte the store keeps, as the operator's backup would see it. */
  rawContents(): Promise<string>;
}

/** Starts the file's scratch PostgreSQL before its tests and stops it after; returns its URL's getter. */
export function useScratchPostgres(): () => string {
  let pg: ScratchPostgres | undefined;
  beforeAll(async () => {
    pg = await startScratchPostgres();
  }, 180_000);
  afterAll(async () => {
    await pg?.stop();
  });
  return () => pg!.url;
}

/** Work to undo after each test, in the order it was added. */
export function useCleanups(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  return cleanups;
}

/** Every file below `dir`, read as bytes. */
export const folderContents = (dir: string): string =>
  readdirSync(dir)
    .map((n) => join(dir, n))
    .map((p) => (statSync(p).isDirectory() ? folderContents(p) : readFileSync(p, 'latin1')))
    .join('\n');

/** Every row of `tables` in the database at `url`. */
export async function tableContents(url: string, tables: string[]): Promise<string> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const parts: string[] = [];
    for (const t of tables) parts.push(JSON.stringify((await c.query(`SELECT * FROM ${t}`)).rows));
    return parts.join('\n');
  } finally {
    await c.end();
  }
}
