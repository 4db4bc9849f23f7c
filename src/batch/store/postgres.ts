/**
 * The batch store in payrun's own PostgreSQL database (beside Temporal's, never inside it): workers,
 * the inbox watcher, the console and the command line on any number of hosts share it. Every value
 * is sealed exactly as the folder store seals its files (store/sealing.ts: the payload keys, bound to
 * its batch, file and place, so a value copied into another row fails to open), so a
 * table holds ids, hashes and sealed text, nothing personal in clear; every process must therefore
 * have the same payload keys (PAYRUN_PAYLOAD_KEYS), as it must for Temporal's payloads anyway.
 */
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Pool, type PoolClient } from 'pg';
import { runner } from 'node-pg-migrate';
import { PRIVATE_FILE_MODE } from '../../private-fs';
import type { SignedStatement } from '../../../workflows/shared/approval-contract';
import type { BatchFinal, BatchRowOutcome } from '../../../workflows/batch/contract';
import { CHUNK_ROWS, checkBatchId, checkFileSha256, type StoredBatchMeta, type StoredRow } from './files';
import { ChunkCutter, chunkRows } from './chunks';
import type { BatchFileKind, BatchStore, BatchWriter, Reseal } from './contract';
import { resealPostgresStore } from './postgres-reseal';
import {
  checkMetaOf,
  chunkEntry,
  fileEntry,
  finalEntry,
  metaEntry,
  outcomeEntry,
  statementEntry,
  type EntryOwner,
} from './entries';
import { openEntry, sealEntry, type StoreEntry } from './sealing';

/** Outcomes and statements are read in pages of this many rows: a batch of any size in bounded memory. */
const PAGE_ROWS = 2000;
/** A kept file is sealed in pieces of this many bytes. */
const FILE_PIECE_BYTES = 1024 * 1024;
/** Connections per process: activities share them, and each query is short. */
const POOL_SIZE = 8;

/** The migrations: plain versioned SQL files, applied by node-pg-migrate (see migrate()). */
function migrationsDir(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'deploy', 'batch-store-migrations');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`the batch store's migrations (deploy/batch-store-migrations) are not above ${__dirname}`);
}

/**
 * Brings the database's tables up to date. node-pg-migrate, not a hand-written runner: it records
 * what ran in its own table and holds a PostgreSQL advisory lock while it runs, so workers starting
 * together on several hosts apply each migration once.
 */
export async function migrate(url: string): Promise<void> {
  await runner({
    databaseUrl: url,
    dir: migrationsDir(),
    migrationsTable: 'payrun_migrations',
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    // Its progress lines would carry nothing an operator needs; a failure still throws.
    log: () => {},
  });
}

export class PostgresBatchStore implements BatchStore {
  readonly sharesFolders = false;
  private readonly pool: Pool;
  private ready: Promise<void> | undefined;

  /**
   * @param dataDir whose payload keys seal the values (configured keys win, as everywhere)
   * @param where the database named for messages, without its password
   */
  constructor(
    private readonly url: string,
    private readonly dataDir: string,
    readonly where: string,
  ) {
    // allowExitOnIdle: a command line ends when its work does, not when idle connections time out.
    this.pool = new Pool({ connectionString: url, max: POOL_SIZE, allowExitOnIdle: true });
    // An idle connection the server dropped (a restart) is reported here; the next query reconnects.
    this.pool.on('error', () => {});
    // The pool stops listening to a connection once it reported one error, and `end()` resolves before
    // its connections have closed: a second error, or one while closing (a failover, a dropped
    // database), would be an unhandled 'error' event that ends the process. A query in flight still
    // fails with it.
    this.pool.on('connect', (connection) => connection.on('error', () => {}));
  }

  /** Migrated before the first query; the reconciliation store (src/reconcile/store/postgres.ts) shares it. */
  async query<R extends object = Record<string, unknown>>(sql: string, params: unknown[] = []) {
    this.ready ??= migrate(this.url).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    await this.ready;
    return this.pool.query<R>(sql, params);
  }

  private async transaction(work: (db: PoolClient) => Promise<void>): Promise<void> {
    await this.query('SELECT 1');
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      await work(db);
      await db.query('COMMIT');
    } catch (e) {
      await db.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      db.release();
    }
  }

  private seal = (entry: StoreEntry, value: unknown) => sealEntry(this.dataDir, entry, value);
  private unseal = <T>(entry: StoreEntry, text: string) => openEntry<T>(this.dataDir, entry, text);

  /** Which batch and file a batch's entries are bound to: its meta's hash, read once per process. */
  private readonly owners = new Map<string, EntryOwner>();
  private async ownerOf(batchId: string): Promise<EntryOwner> {
    let owner = this.owners.get(batchId);
    if (!owner) {
      owner = { batchId, fileSha256: (await this.readMeta(batchId)).contentHash };
      this.owners.set(batchId, owner);
    }
    return owner;
  }

  async exists(batchId: string) {
    const r = await this.query('SELECT 1 FROM batch_meta WHERE batch_id = $1', [checkBatchId(batchId)]);
    return r.rowCount === 1;
  }

  async writeBatch(meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>, rows: StoredRow[]) {
    const batchId = checkBatchId(meta.batchId);
    const chunks = chunkRows(rows);
    const full: StoredBatchMeta = { ...meta, chunkCount: chunks.length, chunkSize: CHUNK_ROWS };
    const at = { batchId, fileSha256: meta.contentHash };
    await this.transaction(async (db) => {
      await db.query('DELETE FROM batch_chunks WHERE batch_id = $1', [batchId]);
      for (const [i, chunk] of chunks.entries())
        await db.query('INSERT INTO batch_chunks (batch_id, chunk, sealed) VALUES ($1, $2, $3)', [
          batchId,
          i,
          this.seal(chunkEntry(at, i), chunk),
        ]);
      await db.query(
        `INSERT INTO batch_meta (batch_id, root_batch_id, sealed) VALUES ($1, $2, $3)
         ON CONFLICT (batch_id) DO UPDATE SET root_batch_id = $2, sealed = $3, written_at = now()`,
        [batchId, meta.rootBatchId, this.seal(metaEntry(batchId), full)],
      );
    });
    return full;
  }

  /**
   * writeBatch as the rows come, in one transaction held open while the file is read: each chunk is
   * inserted sealed as it fills, the meta last, and abandon() rolls every one of them back.
   */
  async beginBatch(batchId: string, fileSha256: string): Promise<BatchWriter> {
    checkBatchId(batchId);
    await this.query('SELECT 1');
    const db = await this.pool.connect();
    let open = true;
    const end = async (sql: string): Promise<void> => {
      if (!open) return;
      open = false;
      try {
        await db.query(sql);
      } finally {
        db.release();
      }
    };
    const at = { batchId, fileSha256 };
    const cutter = new ChunkCutter<StoredRow>();
    let written = 0;
    const write = async (chunk: StoredRow[] | undefined): Promise<void> => {
      if (!chunk) return;
      await db.query('INSERT INTO batch_chunks (batch_id, chunk, sealed) VALUES ($1, $2, $3)', [
        batchId,
        written,
        this.seal(chunkEntry(at, written), chunk),
      ]);
      written++;
    };
    try {
      await db.query('BEGIN');
      await db.query('DELETE FROM batch_chunks WHERE batch_id = $1', [batchId]);
    } catch (e) {
      await end('ROLLBACK').catch(() => {});
      throw e;
    }
    return {
      add: async (row) => {
        try {
          await write(cutter.push(row));
        } catch (e) {
          await end('ROLLBACK').catch(() => {});
          throw e;
        }
      },
      finish: async (meta) => {
        const full: StoredBatchMeta = { ...meta, chunkCount: 0, chunkSize: CHUNK_ROWS };
        try {
          await write(cutter.end());
          full.chunkCount = written;
          await db.query(
            `INSERT INTO batch_meta (batch_id, root_batch_id, sealed) VALUES ($1, $2, $3)
             ON CONFLICT (batch_id) DO UPDATE SET root_batch_id = $2, sealed = $3, written_at = now()`,
            [batchId, meta.rootBatchId, this.seal(metaEntry(batchId), full)],
          );
        } catch (e) {
          await end('ROLLBACK').catch(() => {});
          throw e;
        }
        await end('COMMIT');
        return full;
      },
      abandon: () => end('ROLLBACK'),
    };
  }

  async readMeta(batchId: string): Promise<StoredBatchMeta> {
    const r = await this.query<{ sealed: string }>('SELECT sealed FROM batch_meta WHERE batch_id = $1', [
      checkBatchId(batchId),
    ]);
    if (!r.rows[0]) throw new Error(`batch ${batchId} is not in the batch store (${this.where})`);
    return checkMetaOf(batchId, this.unseal<StoredBatchMeta>(metaEntry(batchId), r.rows[0].sealed));
  }

  async readChunk(batchId: string, index: number): Promise<StoredRow[]> {
    const r = await this.query<{ sealed: string }>(
      'SELECT sealed FROM batch_chunks WHERE batch_id = $1 AND chunk = $2',
      [checkBatchId(batchId), index],
    );
    if (!r.rows[0])
      throw new Error(`batch ${batchId} has no chunk ${index} in the batch store (${this.where})`);
    return this.unseal<StoredRow[]>(chunkEntry(await this.ownerOf(batchId), index), r.rows[0].sealed);
  }

  async appendOutcomes(batchId: string, outcomes: BatchRowOutcome[]) {
    if (outcomes.length === 0) return;
    const entry = outcomeEntry(await this.ownerOf(checkBatchId(batchId)));
    await this.query('INSERT INTO batch_outcomes (batch_id, sealed) SELECT $1, unnest($2::text[])', [
      batchId,
      outcomes.map((o) => this.seal(entry, o)),
    ]);
  }

  /** Keyset pages by the append order: no transaction held open, any size in the same memory. */
  async *outcomes(batchId: string) {
    checkBatchId(batchId);
    let entry: StoreEntry | undefined; // a batch with no outcomes may have no meta either
    for (let after = '0'; ;) {
      const page = await this.query<{ seq: string; sealed: string }>(
        'SELECT seq, sealed FROM batch_outcomes WHERE batch_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [batchId, after, PAGE_ROWS],
      );
      if (page.rows.length > 0) entry ??= outcomeEntry(await this.ownerOf(batchId));
      for (const { sealed } of page.rows)
        yield { sealed, outcome: this.unseal<BatchRowOutcome>(entry!, sealed) };
      if (page.rows.length < PAGE_ROWS) return;
      after = page.rows[page.rows.length - 1]!.seq;
    }
  }

  async writeFinal(batchId: string, final: BatchFinal) {
    await this.query(
      `INSERT INTO batch_finals (batch_id, sealed) VALUES ($1, $2)
       ON CONFLICT (batch_id) DO UPDATE SET sealed = $2`,
      [checkBatchId(batchId), this.seal(finalEntry(await this.ownerOf(batchId)), final)],
    );
  }

  async readFinal(batchId: string): Promise<BatchFinal | undefined> {
    const r = await this.query<{ sealed: string }>('SELECT sealed FROM batch_finals WHERE batch_id = $1', [
      checkBatchId(batchId),
    ]);
    if (!r.rows[0]) return undefined;
    return this.unseal<BatchFinal>(finalEntry(await this.ownerOf(batchId)), r.rows[0].sealed);
  }

  async retryCount(rootBatchId: string) {
    const r = await this.query<{ n: string }>(
      'SELECT count(*) AS n FROM batch_meta WHERE root_batch_id = $1 AND batch_id <> $1',
      [checkBatchId(rootBatchId)],
    );
    return Number(r.rows[0]!.n);
  }

  async batchIds() {
    const r = await this.query<{ batch_id: string }>('SELECT batch_id FROM batch_meta ORDER BY batch_id');
    return r.rows.map((x) => x.batch_id);
  }

  async appendStatement(fileSha256: string, signed: SignedStatement) {
    await this.query('INSERT INTO file_statements (file_sha256, sealed) VALUES ($1, $2)', [
      checkFileSha256(fileSha256),
      this.seal(statementEntry(fileSha256), signed),
    ]);
  }

  async statementsVersion(fileSha256: string) {
    const r = await this.query<{ n: string | null }>(
      'SELECT max(seq) AS n FROM file_statements WHERE file_sha256 = $1',
      [checkFileSha256(fileSha256)],
    );
    return Number(r.rows[0]?.n ?? 0);
  }

  async readStatements(fileSha256: string) {
    const r = await this.query<{ sealed: string }>(
      'SELECT sealed FROM file_statements WHERE file_sha256 = $1 ORDER BY seq',
      [checkFileSha256(fileSha256)],
    );
    return r.rows.map((x) => this.unseal<SignedStatement>(statementEntry(fileSha256), x.sealed));
  }

  async passkeyCounters(credentialIds: string[]) {
    if (credentialIds.length === 0) return {};
    const r = await this.query<{ credential_id: string; counter: string }>(
      'SELECT credential_id, counter FROM passkey_counters WHERE credential_id = ANY($1::text[])',
      [credentialIds],
    );
    return Object.fromEntries(r.rows.map((x) => [x.credential_id, Number(x.counter)]));
  }

  /** One statement: the row moves only forward, so two hosts sending the same assertion see one success. */
  async advancePasskeyCounter(credentialId: string, counter: number) {
    const r = await this.query(
      `INSERT INTO passkey_counters (credential_id, counter) VALUES ($1, $2)
       ON CONFLICT (credential_id) DO UPDATE SET counter = EXCLUDED.counter, updated_at = now()
       WHERE passkey_counters.counter < EXCLUDED.counter`,
      [credentialId, counter],
    );
    return r.rowCount === 1;
  }

  /** Replaces the kept file of that kind, a sealed piece at a time, in one transaction. */
  async saveFile(batchId: string, kind: BatchFileKind, from: string) {
    checkBatchId(batchId);
    await this.transaction((db) => this.replaceFile(db, batchId, kind, from));
  }

  /** The report, the summary and the final in one transaction: another attempt's commit replaces all three. */
  async publishReport(batchId: string, from: { report: string; summary: string }, final: BatchFinal) {
    checkBatchId(batchId);
    const sealedFinal = this.seal(finalEntry(await this.ownerOf(batchId)), final);
    await this.transaction(async (db) => {
      // Attempts publishing the same batch take turns (the advisory lock lasts to COMMIT).
      await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`report:${batchId}`]);
      await this.replaceFile(db, batchId, 'report', from.report);
      await this.replaceFile(db, batchId, 'summary', from.summary);
      await db.query(
        `INSERT INTO batch_finals (batch_id, sealed) VALUES ($1, $2)
         ON CONFLICT (batch_id) DO UPDATE SET sealed = $2`,
        [batchId, sealedFinal],
      );
    });
  }

  private async replaceFile(db: PoolClient, batchId: string, kind: BatchFileKind, from: string) {
    const file = await open(from, 'r');
    try {
      await db.query('DELETE FROM batch_files WHERE batch_id = $1 AND kind = $2', [batchId, kind]);
      const piece = Buffer.alloc(FILE_PIECE_BYTES);
      for (let part = 0; ; part++) {
        const { bytesRead } = await file.read(piece, 0, FILE_PIECE_BYTES, null);
        if (bytesRead === 0 && part > 0) break;
        await db.query('INSERT INTO batch_files (batch_id, kind, part, sealed) VALUES ($1, $2, $3, $4)', [
          batchId,
          kind,
          part,
          this.seal(fileEntry(batchId, kind, part), piece.subarray(0, bytesRead).toString('base64')),
        ]);
        if (bytesRead < FILE_PIECE_BYTES) break;
      }
    } finally {
      await file.close();
    }
  }

  /** A piece at a time into a temporary file renamed into place: a reader never sees half a file. */
  async fetchFile(batchId: string, kind: BatchFileKind, to: string): Promise<boolean> {
    checkBatchId(batchId);
    const tmp = `${to}.${process.pid}.tmp`;
    const out = await open(tmp, 'w', PRIVATE_FILE_MODE);
    let parts = 0;
    try {
      for (;;) {
        const r = await this.query<{ sealed: string }>(
          'SELECT sealed FROM batch_files WHERE batch_id = $1 AND kind = $2 AND part = $3',
          [batchId, kind, parts],
        );
        if (!r.rows[0]) break;
        const piece = this.unseal<string>(fileEntry(batchId, kind, parts), r.rows[0].sealed);
        await out.write(Buffer.from(piece, 'base64'));
        parts++;
      }
    } finally {
      await out.close();
    }
    if (parts === 0) {
      await rm(tmp, { force: true });
      return false;
    }
    await rename(tmp, to);
    return true;
  }

  async resealEntries(reseal: Reseal) {
    await resealPostgresStore((sql, params) => this.query(sql, params), this.dataDir, reseal);
    this.owners.clear();
  }

  async close() {
    await this.pool.end();
  }
}
