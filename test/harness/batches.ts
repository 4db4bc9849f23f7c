import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { parse } from 'csv-parse/sync';
import * as iconv from 'iconv-lite';
import type { BatchPaths } from '../../src/batch/services/config';
import { batchFolders } from '../../src/batch/services/folders';
import { submitBatch, type SubmitOptions } from '../../src/batch/commands/submit';
import { loadPolicy } from '../../src/policy/file';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import type { batchWorkflow } from '../../workflows/batch/workflow';
import { batchProgressQuery, type BatchProgress } from '../../workflows/batch/contract';
import type { PayoutOptions } from '../../workflows/payout/contract';
import type { Stack } from './stack';
import { inn12 } from './csv-rows';

export interface CsvRow {
  reference: string;
  inn?: string;
  card?: string;
  /** Rubles as the file writes them. */
  amount?: string;
  selfEmployed?: boolean;
  /** A pay_on date as the file writes it (the column is added when a row has one). */
  payOn?: string;
}

/** A unique reference prefix per test: the dev server is shared by every test of the run. */
export const uniquePrefix = () => `t${randomUUID().slice(0, 8)}`;

/** A batch file: Russian headers, ';' and Windows-1251 like a Russian Excel export, or English, ',' and UTF-8. */
export function batchCsv(
  rows: CsvRow[],
  opts: { win1251?: boolean; totalRow?: string; extraLine?: string } = {},
): Buffer {
  const ru = opts.win1251 ?? false;
  const d = ru ? ';' : ',';
  const header = ru
    ? [
        'Референс',
        'Фамилия',
        'Имя',
        'ИНН',
        'Способ',
        'Номер карты',
        'Сумма',
        'Валюта',
        'Услуга',
        'Самозанятый',
        ...(rows.some((r) => r.payOn) ? ['Дата выплаты'] : []),
      ]
    : [
        'reference',
        'last_name',
        'first_name',
        'inn',
        'method',
        'card_number',
        'amount',
        'currency',
        'service_name',
        'self_employed',
        ...(rows.some((r) => r.payOn) ? ['pay_on'] : []),
      ];
  const lines = [header.join(d)];
  for (const r of rows) {
    const amount = r.amount ?? (ru ? '1 500,00' : '1500.00');
    lines.push(
      [
        r.reference,
        ru ? 'Кузнецова' : 'Ivanova',
        ru ? 'Мария' : 'Anna',
        r.inn ?? TEST_INNS.SELF_EMPLOYED_LINKED,
        ru ? 'карта' : 'card',
        r.card ?? TEST_CARDS.SUCCESS,
        ru ? `"${amount}"` : `"${amount}"`,
        'RUB',
        ru ? 'Консультация' : 'Design',
        r.selfEmployed === false ? (ru ? 'нет' : 'no') : ru ? 'да' : 'yes',
        ...(rows.some((x) => x.payOn) ? [r.payOn ?? ''] : []),
      ].join(d),
    );
  }
  if (opts.extraLine) lines.push(opts.extraLine);
  if (opts.totalRow) lines.push(`ИТОГО${d.repeat(6)}"${opts.totalRow}"${d.repeat(3)}`);
  const text = lines.join('\r\n') + '\r\n';
  return ru ? iconv.encode(text, 'win1251') : Buffer.from(text, 'utf8');
}

/** A fresh batches folder tree and batch store for one test file (activities read PAYRUN_DATA_DIR). */
export function batchTestPaths(): BatchPaths {
  const root = mkdtempSync(join(tmpdir(), 'payrun-batch-'));
  process.env.PAYRUN_DATA_DIR = join(root, 'data');
  const paths = { dataDir: join(root, 'data'), batchesDir: join(root, 'batches') };
  batchFolders(paths.batchesDir);
  return paths;
}

/** Quick polls so tests do not wait out a missing webhook for a minute. */
export const FAST_PAYOUTS: PayoutOptions = { pollAfterMs: 1_000 };

export function submitOptions(
  stack: Stack,
  paths: BatchPaths,
  extra: Partial<SubmitOptions> = {},
): SubmitOptions {
  return {
    paths,
    taskQueue: stack.taskQueue,
    submitter: stack.signer('preparer'),
    whoMayPay: loadPolicy({ PAYRUN_POLICY_FILE: stack.people.file }),
    ...extra,
    batchOptions: { fundsRecheckMs: 500, payout: FAST_PAYOUTS, ...extra.batchOptions },
  };
}

/** Writes `bytes` into the inbox as `name` and submits it. */
export async function dropAndSubmit(
  stack: Stack,
  paths: BatchPaths,
  name: string,
  bytes: Buffer,
  extra: Partial<SubmitOptions> = {},
) {
  const file = join(paths.batchesDir, 'inbox', name);
  writeFileSync(file, bytes);
  return submitBatch(stack.client, file, submitOptions(stack, paths, extra));
}

export const batchHandle = (stack: Stack, batchId: string) =>
  stack.client.workflow.getHandle<typeof batchWorkflow>(batchId);

export async function waitForProgress(
  handle: WorkflowHandle<typeof batchWorkflow>,
  done: (p: BatchProgress) => boolean,
  timeoutMs = 60_000,
): Promise<BatchProgress> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await handle.query(batchProgressQuery).catch(() => undefined);
    if (p && done(p)) return p;
    if (Date.now() > deadline) throw new Error(`batch progress never matched; last: ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The report's rows as objects keyed by header, decoded from the file's own encoding. */
export function readReport(path: string, win1251: boolean): Record<string, string>[] {
  const raw = readFileSync(path);
  const text = win1251 ? iconv.decode(raw, 'win1251') : raw.toString('utf8');
  return parse(text, { delimiter: win1251 ? ';' : ',', columns: true, relax_column_count: true }) as Record<
    string,
    string
  >[];
}

/** Executed payouts in the sandbox ledger per reference (the sandbox is the bank: what it paid was paid). */
export function ledgerPayouts(stack: Stack, references: string[]): Map<string, number> {
  const counts = new Map<string, number>(references.map((r) => [r, 0]));
  for (const e of stack.sandbox.ledger()) {
    if (e.kind === 'payout' && e.recipient_reference && counts.has(e.recipient_reference))
      counts.set(e.recipient_reference, counts.get(e.recipient_reference)! + 1);
  }
  return counts;
}

/** A valid 12-digit INN the sandbox has no special meaning for (a linked self-employed person). */
export function freshInn(seed: number): string {
  return inn12(`77${String(seed).padStart(8, '0')}`);
}
