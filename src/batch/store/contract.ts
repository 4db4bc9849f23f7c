/**
 * The batch store, whichever holds it: what the submitter, the worker's activities, the console and
 * the command line share about a batch. Two implementations: the local folder (folder.ts, one host)
 * and PostgreSQL (postgres.ts, any number of hosts). Everything that may hold personal data is sealed
 * with the payload keys in both (card and account numbers, INNs, names never stored in clear).
 */
import type { SignedStatement } from '../../../workflows/shared/approval-contract';
import type { BatchFinal, BatchRowOutcome } from '../../../workflows/batch/contract';
import type { BatchWriter, StoredBatchMeta, StoredRow } from './files';

export type { BatchWriter };
import type { StoreEntry } from './sealing';

/** What to keep instead of an entry's stored text, or undefined to leave it (`payrun store seal`). */
export type Reseal = (entry: StoreEntry, stored: string) => string | undefined;

/** Files a batch keeps besides its rows: the submitted file and, once finished, its report and summary. */
export type BatchFileKind = 'source' | 'report' | 'summary';

export interface BatchStore {
  /** Where the store is, for messages (never a password). */
  readonly where: string;
  /**
   * Whether the paths a batch's meta names (processing/, done/) are this store's files too: true for
   * the folder store, whose processes share one disk; false when the file's bytes live in the store.
   */
  readonly sharesFolders: boolean;

  exists(batchId: string): Promise<boolean>;
  /** Rows first, meta last: a batch with a meta is complete. Writing it again replaces it. */
  writeBatch(
    meta: Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>,
    rows: StoredRow[],
  ): Promise<StoredBatchMeta>;
  /** writeBatch a row at a time: for a file read as a stream, in bounded memory. */
  beginBatch(batchId: string, fileSha256: string): Promise<BatchWriter>;
  readMeta(batchId: string): Promise<StoredBatchMeta>;
  readChunk(batchId: string, index: number): Promise<StoredRow[]>;
  /** Appends outcomes; a retried activity appends twice, and the last one per row wins. */
  appendOutcomes(batchId: string, outcomes: BatchRowOutcome[]): Promise<void>;
  /** Every outcome of one batch in the order it was appended, read a piece at a time; `sealed` is as stored. */
  outcomes(batchId: string): AsyncIterable<{ sealed: string; outcome: BatchRowOutcome }>;
  writeFinal(batchId: string, final: BatchFinal): Promise<void>;
  /**
   * Publishes a finished batch's report and summary (written complete at `from`) with its final record,
   * all at once: a reader, and a second attempt publishing the same, see one attempt's whole report,
   * never a mix. Folder store: renamed to the final's paths; PostgreSQL: kept in one transaction.
   */
  publishReport(batchId: string, from: { report: string; summary: string }, final: BatchFinal): Promise<void>;
  readFinal(batchId: string): Promise<BatchFinal | undefined>;
  /** Retries of a first batch already in the store (their ids end in -retry-<n>). */
  retryCount(rootBatchId: string): Promise<number>;
  /** Every complete batch's id. */
  batchIds(): Promise<string[]>;

  /** Append-only: what people said about one file (submitted, approved, rejected). */
  appendStatement(fileSha256: string, signed: SignedStatement): Promise<void>;
  /** Grows with every statement (0 when nothing was said): a change means a new statement. */
  statementsVersion(fileSha256: string): Promise<number>;
  readStatements(fileSha256: string): Promise<SignedStatement[]>;

  /** The highest signature counter accepted so far for each of these passkeys (credential ids) that has one. */
  passkeyCounters(credentialIds: string[]): Promise<Record<string, number>>;
  /**
   * Records `counter` for the passkey only when it is above every one recorded, atomically: false when it
   * is not (the assertion is a replay, or its authenticator was copied).
   */
  advancePasskeyCounter(credentialId: string, counter: number): Promise<boolean>;

  /** Keeps a batch's file (the bytes at `from`) for processes on other hosts. */
  saveFile(batchId: string, kind: BatchFileKind, from: string): Promise<void>;
  /** Writes a batch's kept file to `to` (owner-only); false when the store has none of that kind. */
  fetchFile(batchId: string, kind: BatchFileKind, to: string): Promise<boolean>;

  /**
   * Offers every sealed value the store holds, with the entry it belongs to, to `reseal`, and stores
   * what it returns instead (the migration to entries bound to their place: store/reseal.ts). Run with
   * no worker, watcher or console writing to the store.
   */
  resealEntries(reseal: Reseal): Promise<void>;

  /** Frees connections (PostgreSQL); the folder store holds none. */
  close(): Promise<void>;
}
