/**
 * The reconciliation store in the batch store's PostgreSQL database: the same pool, the same
 * migrations (deploy/batch-store-migrations/, node-pg-migrate) and the same sealing with the payload
 * keys, so workers on any number of hosts share a day's statement, differences and reports.
 */
import { rename } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../../private-fs';
import { openJson, sealJson } from '../../batch/store/files';
import type { PostgresBatchStore } from '../../batch/store/postgres';
import {
  checkAccount,
  checkDay,
  checkReportName,
  type DayInputKind,
  type DayOutcome,
  type DifferenceRecord,
  type ReconcileStore,
} from '../store';

type AccountState = 'differences' | 'matched-sessions';

export class PostgresReconcileStore implements ReconcileStore {
  readonly sharesFolders = false;
  readonly where: string;

  /** @param dataDir whose payload keys seal the values (configured keys win, as everywhere) */
  constructor(
    private readonly db: PostgresBatchStore,
    private readonly dataDir: string,
  ) {
    this.where = db.where;
  }

  private seal = (value: unknown) => sealJson(this.dataDir, value);
  private unseal = <T>(text: string) => openJson<T>(this.dataDir, text);

  private async readState<T>(account: string, name: AccountState): Promise<T | undefined> {
    const r = await this.db.query<{ sealed: string }>(
      'SELECT sealed FROM reconcile_account_state WHERE account = $1 AND name = $2',
      [checkAccount(account), name],
    );
    return r.rows[0] ? this.unseal<T>(r.rows[0].sealed) : undefined;
  }

  private async writeState(account: string, name: AccountState, value: unknown): Promise<void> {
    await this.db.query(
      `INSERT INTO reconcile_account_state (account, name, sealed) VALUES ($1, $2, $3)
       ON CONFLICT (account, name) DO UPDATE SET sealed = $3`,
      [checkAccount(account), name, this.seal(value)],
    );
  }

  async readDifferences(account: string) {
    return (await this.readState<Record<string, DifferenceRecord>>(account, 'differences')) ?? {};
  }

  async writeDifferences(account: string, all: Record<string, DifferenceRecord>) {
    await this.writeState(account, 'differences', all);
  }

  async readMatchedSessions(account: string) {
    return (await this.readState<Record<string, string>>(account, 'matched-sessions')) ?? {};
  }

  async writeMatchedSessions(account: string, all: Record<string, string>) {
    await this.writeState(account, 'matched-sessions', all);
  }

  async writeDayInput(account: string, day: string, kind: DayInputKind, value: unknown) {
    await this.db.query(
      `INSERT INTO reconcile_day_inputs (account, day, kind, sealed) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account, day, kind) DO UPDATE SET sealed = $4`,
      [checkAccount(account), checkDay(day), kind, this.seal(value)],
    );
  }

  async readDayInput<T>(account: string, day: string, kind: DayInputKind) {
    const r = await this.db.query<{ sealed: string }>(
      'SELECT sealed FROM reconcile_day_inputs WHERE account = $1 AND day = $2 AND kind = $3',
      [checkAccount(account), checkDay(day), kind],
    );
    return r.rows[0] ? this.unseal<T>(r.rows[0].sealed) : undefined;
  }

  async writeDayOutcome(outcome: DayOutcome) {
    await this.db.query(
      `INSERT INTO reconcile_day_outcomes (account, day, outcome) VALUES ($1, $2, $3)
       ON CONFLICT (account, day) DO UPDATE SET outcome = $3`,
      [checkAccount(outcome.account), checkDay(outcome.day), JSON.stringify(outcome)],
    );
  }

  async readDayOutcome(account: string, day: string) {
    const r = await this.db.query<{ outcome: DayOutcome }>(
      'SELECT outcome FROM reconcile_day_outcomes WHERE account = $1 AND day = $2',
      [checkAccount(account), checkDay(day)],
    );
    return r.rows[0]?.outcome;
  }

  async reconciledDays(account: string) {
    const r = await this.db.query<{ day: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM reconcile_day_outcomes
       WHERE account = $1 AND outcome->>'outcome' = 'reconciled' ORDER BY day`,
      [checkAccount(account)],
    );
    return r.rows.map((x) => x.day);
  }

  async outcomeDays(account: string) {
    const r = await this.db.query<{ day: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM reconcile_day_outcomes WHERE account = $1 ORDER BY day`,
      [checkAccount(account)],
    );
    return r.rows.map((x) => x.day);
  }

  async accounts() {
    const r = await this.db.query<{ account: string }>(
      `SELECT account FROM reconcile_account_state UNION SELECT account FROM reconcile_day_outcomes
       ORDER BY account`,
    );
    return r.rows.map((x) => x.account);
  }

  /** Named by its file name: a reader on another host fetches it into its own folder (fetchReport). */
  async saveReport(account: string, day: string, name: string, content: Buffer | string) {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    await this.db.query(
      `INSERT INTO reconcile_reports (account, day, name, sealed) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account, day, name) DO UPDATE SET sealed = $4`,
      [checkAccount(account), checkDay(day), checkReportName(name), this.seal(bytes.toString('base64'))],
    );
    return name;
  }

  /** Into a temporary file renamed into place: a reader never sees half a report. */
  async fetchReport(account: string, day: string, name: string, to: string) {
    const r = await this.db.query<{ sealed: string }>(
      'SELECT sealed FROM reconcile_reports WHERE account = $1 AND day = $2 AND name = $3',
      [checkAccount(account), checkDay(day), checkReportName(name)],
    );
    if (!r.rows[0]) return false;
    const tmp = `${to}.${process.pid}.tmp`;
    await writeFile(tmp, Buffer.from(this.unseal<string>(r.rows[0].sealed), 'base64'), {
      mode: PRIVATE_FILE_MODE,
    });
    await rename(tmp, to);
    return true;
  }
}
