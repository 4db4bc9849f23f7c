/**
 * The batch store in a local folder (`<dataDir>/store/`): the embedded default. Every process that
 * touches batches must share the folder, so it serves one host (or a shared volume). The files and
 * their sealing are src/batch/store/files.ts's; this adapts them to the BatchStore contract.
 */
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { copyPrivateFile } from '../../private-fs';
import type { SignedStatement } from '../../../workflows/shared/approval-contract';
import type { BatchFinal, BatchRowOutcome } from '../../../workflows/batch/contract';
import { outcomeLines } from './outcome-index';
import * as files from './files';
import type { BatchFileKind, BatchStore, Reseal } from './contract';
import { resealFolderStore } from './folder-reseal';
import { advancePasskeyCounter, readPasskeyCounters } from './passkey-counters';

export class FolderBatchStore implements BatchStore {
  readonly sharesFolders = true;
  readonly where: string;

  constructor(readonly dataDir: string) {
    this.where = join(dataDir, 'store');
  }

  async exists(batchId: string) {
    return files.batchExists(this.dataDir, batchId);
  }
  async writeBatch(meta: Omit<files.StoredBatchMeta, 'chunkCount' | 'chunkSize'>, rows: files.StoredRow[]) {
    return files.writeBatch(this.dataDir, meta, rows);
  }
  async beginBatch(batchId: string, fileSha256: string) {
    return files.beginBatch(this.dataDir, batchId, fileSha256);
  }
  async readMeta(batchId: string) {
    return files.readMeta(this.dataDir, batchId);
  }
  async readChunk(batchId: string, index: number) {
    return files.readChunk(this.dataDir, batchId, index);
  }
  async appendOutcomes(batchId: string, outcomes: BatchRowOutcome[]) {
    files.appendOutcomes(this.dataDir, batchId, outcomes);
  }
  async *outcomes(batchId: string) {
    for await (const { line, outcome } of outcomeLines(this.dataDir, batchId))
      yield { sealed: line, outcome };
  }
  async writeFinal(batchId: string, final: BatchFinal) {
    files.writeFinal(this.dataDir, batchId, final);
  }
  /** Both renames and the final's write run before this yields: attempts in one process never interleave. */
  async publishReport(batchId: string, from: { report: string; summary: string }, final: BatchFinal) {
    renameSync(from.report, final.reportPath);
    renameSync(from.summary, final.summaryPath);
    files.writeFinal(this.dataDir, batchId, final);
  }
  async readFinal(batchId: string) {
    return files.readFinal(this.dataDir, batchId);
  }
  async retryCount(rootBatchId: string) {
    return files.retryCount(this.dataDir, rootBatchId);
  }
  async batchIds() {
    const dir = join(this.dataDir, 'store');
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((id) => id.startsWith('batch-') && files.batchExists(this.dataDir, id))
      .sort();
  }
  async appendStatement(fileSha256: string, signed: SignedStatement) {
    files.appendStatement(this.dataDir, fileSha256, signed);
  }
  async statementsVersion(fileSha256: string) {
    return files.statementsSize(this.dataDir, fileSha256);
  }
  async readStatements(fileSha256: string) {
    return files.readStatements(this.dataDir, fileSha256);
  }

  async passkeyCounters(credentialIds: string[]) {
    return readPasskeyCounters(this.dataDir, credentialIds);
  }
  async advancePasskeyCounter(credentialId: string, counter: number) {
    return advancePasskeyCounter(this.dataDir, credentialId, counter);
  }

  /** The folders are shared: the file already is where the meta (or the final) says. */
  async saveFile(): Promise<void> {}

  async fetchFile(batchId: string, kind: BatchFileKind, to: string): Promise<boolean> {
    const from = await this.pathOf(batchId, kind);
    if (!from || !existsSync(from)) return false;
    copyPrivateFile(from, to);
    return true;
  }

  private async pathOf(batchId: string, kind: BatchFileKind): Promise<string | undefined> {
    if (kind !== 'source') {
      const final = await this.readFinal(batchId);
      return kind === 'report' ? final?.reportPath : final?.summaryPath;
    }
    const meta = await this.readMeta(batchId);
    if (existsSync(meta.sourcePath)) return meta.sourcePath;
    return meta.doneName ? join(meta.doneDir, meta.doneName) : undefined;
  }

  async resealEntries(reseal: Reseal): Promise<void> {
    resealFolderStore(this.dataDir, reseal);
  }

  async close(): Promise<void> {}
}
