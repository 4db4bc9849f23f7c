/**
 * The reconciliation store in a local folder, `<dataDir>/reconciliation/<account>/` (one host, `make
 * demo`, tests): differences.json and matched-sessions.json, and per day `days/<day>/` with
 * statement.json and payouts.json (sealed like differences), day.json, and the reports in plain files
 * (owner-only, like batch reports), which accounting opens where they lie.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyPrivateFile, ensurePrivateDir, writePrivateFileAtomic } from '../../private-fs';
import { openJson, sealJson } from '../../batch/store/files';
import {
  checkAccount,
  checkDay,
  checkReportName,
  type DayInputKind,
  type DayOutcome,
  type DifferenceRecord,
  isAccount,
  type ReconcileStore,
} from '../store';

export class FolderReconcileStore implements ReconcileStore {
  readonly sharesFolders = true;
  readonly where: string;

  constructor(private readonly dataDir: string) {
    this.where = `folder ${join(dataDir, 'reconciliation')}`;
  }

  private accountDir(account: string): string {
    return join(this.dataDir, 'reconciliation', checkAccount(account));
  }

  private dayDir(account: string, day: string): string {
    return join(this.accountDir(account), 'days', checkDay(day));
  }

  private readSealedFile<T>(file: string): T | undefined {
    return existsSync(file) ? openJson<T>(this.dataDir, readFileSync(file, 'utf8')) : undefined;
  }

  private writeSealedFile(dir: string, name: string, value: unknown): void {
    ensurePrivateDir(dir);
    writePrivateFileAtomic(join(dir, name), sealJson(this.dataDir, value));
  }

  async readDifferences(account: string) {
    return (
      this.readSealedFile<Record<string, DifferenceRecord>>(
        join(this.accountDir(account), 'differences.json'),
      ) ?? {}
    );
  }

  async writeDifferences(account: string, all: Record<string, DifferenceRecord>) {
    this.writeSealedFile(this.accountDir(account), 'differences.json', all);
  }

  async readMatchedSessions(account: string) {
    return (
      this.readSealedFile<Record<string, string>>(join(this.accountDir(account), 'matched-sessions.json')) ??
      {}
    );
  }

  async writeMatchedSessions(account: string, all: Record<string, string>) {
    this.writeSealedFile(this.accountDir(account), 'matched-sessions.json', all);
  }

  async writeDayInput(account: string, day: string, kind: DayInputKind, value: unknown) {
    this.writeSealedFile(this.dayDir(account, day), `${kind}.json`, value);
  }

  async readDayInput<T>(account: string, day: string, kind: DayInputKind) {
    return this.readSealedFile<T>(join(this.dayDir(account, day), `${kind}.json`));
  }

  async writeDayOutcome(outcome: DayOutcome) {
    const dir = this.dayDir(outcome.account, outcome.day);
    ensurePrivateDir(dir);
    writePrivateFileAtomic(join(dir, 'day.json'), JSON.stringify(outcome, null, 2));
  }

  async readDayOutcome(account: string, day: string) {
    const file = join(this.dayDir(account, day), 'day.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DayOutcome) : undefined;
  }

  async reconciledDays(account: string) {
    const dir = join(this.accountDir(account), 'days');
    if (!existsSync(dir)) return [];
    const days: string[] = [];
    for (const day of readdirSync(dir).sort())
      if ((await this.readDayOutcome(account, day))?.outcome === 'reconciled') days.push(day);
    return days;
  }

  async outcomeDays(account: string) {
    const dir = join(this.accountDir(account), 'days');
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .sort()
      .filter((day) => existsSync(join(dir, day, 'day.json')));
  }

  async accounts() {
    const dir = join(this.dataDir, 'reconciliation');
    return existsSync(dir) ? readdirSync(dir).filter(isAccount).sort() : [];
  }

  async saveReport(account: string, day: string, name: string, content: Buffer | string) {
    const dir = this.dayDir(account, day);
    ensurePrivateDir(dir);
    const file = join(dir, checkReportName(name));
    writePrivateFileAtomic(file, content);
    return file;
  }

  async fetchReport(account: string, day: string, name: string, to: string) {
    const file = join(this.dayDir(account, day), checkReportName(name));
    if (!existsSync(file)) return false;
    if (file !== to) copyPrivateFile(file, to);
    return true;
  }
}
