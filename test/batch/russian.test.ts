import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { finishBatch } from '../../src/batch/services/finish';
import { appendOutcomes, writeBatch, type StoredBatchMeta } from '../../src/batch/store/files';
import { dryRunProgressReporter } from '../../src/batch/commands/dry-run';
import { describeProgress } from '../../src/cli/follow';
import { loadBatch, RESULT_COLUMNS } from '../../src/csv';
import { currentLang, moscowTime, t } from '../../src/i18n';
import type { BatchProgress } from '../../workflows/batch/contract';
import { cardRow, csvText, HEADER, utf8 } from '../harness/csv-rows';

/**
 * What accounting reads is Russian unless PAYRUN_LANG=en: the report's reasons, the summary,
 * `batch status`, validation messages; the codes in the report (state, error_code, rule) stay as
 * they are for machines. Money as 1 234,56 ₽, times in Moscow time.
 */

let before: string | undefined;
beforeAll(() => {
  before = process.env.PAYRUN_LANG;
  delete process.env.PAYRUN_LANG;
});
afterAll(() => {
  if (before !== undefined) process.env.PAYRUN_LANG = before;
});

const progress = (over: Partial<BatchProgress>): BatchProgress => ({
  batchId: 'batch-00000000000000cc',
  phase: 'paying',
  fileName: 'март.csv',
  rows: 30,
  invalidRows: 0,
  totalKopecks: 1_234_56,
  dispatched: 30,
  inFlight: 0,
  finished: 30,
  counts: {},
  amounts: {},
  failures: [],
  failureCount: 0,
  runs: 1,
  ...over,
});

describe('batch status in Russian by default', () => {
  it('phase, rows, states and money in Russian; failures in row order; what is not listed counted right', () => {
    const failures = [9, 4, 12, 2, 7, 30, 21, 15, 18, 11, 3].map((row) => ({
      row,
      reference: `p-${row}`,
      state: 'failed' as const,
      code: 'card_declined',
      reason: 'Карта отклонена банком-эмитентом',
    }));
    const lines = describeProgress(
      progress({
        invalidRows: 7,
        counts: { succeeded: 12, failed: 18 },
        amounts: { succeeded: 1_000_00, failed: 234_56 },
        failures,
        failureCount: 18,
      }),
    );
    expect(lines.slice(0, 3)).toEqual([
      'batch-00000000000000cc: идут выплаты — март.csv',
      'строк к выплате 30 (1 234,56 ₽), с ошибками 7; начато 30, в работе 0, завершено 30',
      '  выплачено 12 (1 000,00 ₽), не выплачено 18 (234,56 ₽)',
    ]);
    // The ten lowest rows of those the workflow kept, then the 8 failures and 7 invalid rows not listed (15).
    expect(lines.slice(3, 13).map((l) => Number(/строка (\d+)/.exec(l)![1]))).toEqual([
      2, 3, 4, 7, 9, 11, 12, 15, 18, 21,
    ]);
    // The bank's own words, quoted and labelled beside payrun's (issue 39).
    expect(lines[3]).toBe(
      '  строка 2 p-2: не выплачено (card_declined) — банк отказал. Слова банка: "Карта отклонена банком-эмитентом"',
    );
    expect(lines[13]).toBe('  … ещё 8 невыплаченных и 7 строк с ошибками — в отчёте');
  });

  it('rows asleep until their pay_on day are counted apart among those in flight', () => {
    const lines = describeProgress(progress({ dispatched: 30, inFlight: 20, scheduled: 18, finished: 10 }));
    expect(lines[1]).toBe(
      'строк к выплате 30 (1 234,56 ₽), с ошибками 0; начато 30, в работе 20 (из них ждут даты выплаты 18), завершено 10',
    );
  });

  it('a batch waiting for funds names the shortfall and the largest rows; the check time is Moscow time', () => {
    const lines = describeProgress(
      progress({
        phase: 'awaiting_funds',
        dispatched: 0,
        finished: 0,
        funds: {
          neededKopecks: 150_012_000_00,
          balanceKopecks: 12_000_00,
          checkedAt: '2026-11-24T09:45:00Z',
        },
      }),
      {
        largestRows: [
          { row: 7, reference: 'p-7', amount: 150_000_000_00 },
          { row: 3, reference: 'p-3', amount: 5_000_00 },
        ],
      },
    );
    expect(lines.slice(3)).toEqual([
      'депозит 12 000,00 ₽, к выплате 150 012 000,00 ₽ (проверено 24.11.2026 12:45 МСК)',
      '  не хватает 150 000 000,00 ₽: пакет ждёт пополнения депозита',
      '  самые крупные строки: строка 7 p-7 150 000 000,00 ₽; строка 3 p-3 5 000,00 ₽',
    ]);
  });

  it('English with PAYRUN_LANG=en; anything else is a configuration error naming the variable', () => {
    expect(currentLang({ PAYRUN_LANG: 'en' })).toBe('en');
    expect(currentLang({})).toBe('ru');
    expect(() => currentLang({ PAYRUN_LANG: 'de' })).toThrow(/PAYRUN_LANG: ru or en/);
    expect(moscowTime('2026-06-30T21:30:00Z', 'en')).toBe('01.07.2026 00:30 MSK');
  });
});

describe('the report and validation in Russian by default', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'payrun-russian-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a 150 000 000,00 row is refused in Russian naming the limit in roubles', () => {
    const batch = loadBatch(utf8(csvText([cardRow({ amount: '150 000 000,00' })])));
    expect(batch.rows[0]!.errors).toEqual([
      {
        row: 2,
        column: 'amount',
        rule: 'amount_above_limit',
        message:
          'сумма "150 000 000,00" больше предела одной выплаты, 1 000 000,00 ₽; проверьте сумму (предел задаёт PAYRUN_MAX_PAYOUT)',
      },
    ]);
  });

  it('reasons and summary in Russian, codes unchanged; a reference conflict names roubles, not kopecks', async () => {
    const dataDir = join(root, 'data');
    const done = join(root, 'done');
    mkdirSync(done, { recursive: true });
    const source = join(root, 'march.csv');
    const bytes = utf8(
      csvText([
        cardRow({ reference: 'a', amount: '1 500,00' }),
        cardRow({ reference: 'b', amount: '150 000,00' }),
        cardRow({ reference: 'c', amount: '10,00' }),
        cardRow({ reference: 'd', amount: '0' }),
      ]),
    );
    writeFileSync(source, bytes);
    const batch = loadBatch(bytes, { policy: 'partial' });
    const batchId = 'batch-00000000000000dd';
    writeBatch(
      dataDir,
      {
        batchId,
        rootBatchId: batchId,
        contentHash: 'd'.repeat(64),
        fileSha256: 'd'.repeat(64),
        fileName: 'march.csv',
        sourcePath: source,
        doneDir: done,
        doneName: 'march.csv',
        reportName: 'march',
        load: { policy: 'partial' },
        rowCount: 3,
        invalidRows: 1,
        totalKopecks: 151_510_00,
        submittedAt: new Date().toISOString(),
      } as Omit<StoredBatchMeta, 'chunkCount' | 'chunkSize'>,
      batch.rows.filter((r) => r.request).map((r) => ({ row: r.row, request: r.request! })),
    );
    appendOutcomes(dataDir, batchId, [
      { row: 2, reference: 'a', amount: 1_500_00, state: 'succeeded', sessionId: 'ps_1', payoutId: 'po_1' },
      {
        row: 3,
        reference: 'b',
        amount: 150_000_00,
        state: 'reference_conflict',
        errorCode: 'reference_conflict',
        // As the batch workflow words it today (workflows/batch/tally.ts, workflows/shared/reference.ts).
        reason:
          'reference already paid by batch batch-00000000000000ee to another payee or amount (differs: amount (15000000 vs 1500000000 kopecks), card number); nothing paid — give this row its own reference',
      },
    ]);
    const final = await finishBatch(dataDir, batchId, { cancelled: true });
    const records: string[][] = parse(readFileSync(final.reportPath, 'utf8'));
    const result = (row: number) =>
      Object.fromEntries(RESULT_COLUMNS.map((c, i) => [c, records[row - 1]![HEADER.length + i]]));
    expect(result(3)).toMatchObject({
      state: 'reference_conflict',
      error_code: 'reference_conflict',
      reason:
        'конфликт референса: уже выплачено пакетом batch-00000000000000ee другому получателю или другую сумму (отличается: сумма (была 150 000,00 ₽, в файле 15 000 000,00 ₽), номер карты)',
    });
    expect(result(4)).toMatchObject({
      state: 'cancelled',
      error_code: 'batch_cancelled',
      reason: 'пакет отменён до начала этой выплаты',
    });
    expect(result(5)).toMatchObject({
      state: 'invalid',
      error_code: 'amount_positive',
      reason: 'amount: сумма "0" должна быть больше нуля',
    });
    // The last column says each state in Russian beside its code.
    const words = records[0]!.length - 1;
    expect(records[0]![words]).toBe('Результат');
    expect([2, 3, 4, 5].map((row) => records[row - 1]![words])).toEqual([
      'выплачено',
      'конфликт референса',
      'отменено',
      'с ошибками',
    ]);
    expect(final.summary).toBe(
      '4 строки, 151 510,00 ₽: выплачено 1 (1 500,00 ₽), конфликт референса 1 (150 000,00 ₽), отменено 1 (10,00 ₽), строк с ошибками: 1 (0,00 ₽)',
    );
    expect(readFileSync(final.summaryPath, 'utf8')).toBe(
      `пакет ${batchId}\nфайл march.csv\n${final.summary}\nотчёт ${final.reportPath}\n`,
    );
  });
});

describe('what batch submit and retry-failed print, in Russian by default and in English', () => {
  it('the accepted rows, who submitted, a file submitted before, the followed end, the retry: money in roubles', () => {
    const said = (lang: 'ru' | 'en') => [
      t('submit.accepted', { valid: 4, total: 14_000_00, invalid: 0 }, lang),
      t('submit.accepted', { valid: 1, total: 1_234_56, invalid: 2 }, lang),
      t('submit.by', { person: 'maria', batchId: 'batch-00000000000000cc' }, lang),
      t('submit.already', { batchId: 'batch-00000000000000cc', firstFile: 'март.csv' }, lang),
      t('submit.followed', { counts: 'C', invalid: 2 }, lang),
      t('submit.followed', { counts: 'C', invalid: 0 }, lang),
      t('submit.report', { report: '/r.csv' }, lang),
      t('submit.would_reject', { file: 'март.csv' }, lang),
      t('retry.started', { rows: 3, total: 4_500_00, from: 'batch-00000000000000cc' }, lang),
      t('dryrun.checked', { count: 1 }, lang),
    ];
    expect(said('ru')).toEqual([
      'к выплате 4 строки (14 000,00 ₽), с ошибками 0',
      'к выплате 1 строка (1 234,56 ₽), с ошибками 2',
      'отправил(а) maria; ждёт ли пакет утверждения, покажет payrun batch status batch-00000000000000cc',
      'batch-00000000000000cc: уже отправлен (как март.csv); дважды ничего не платится',
      'C, с ошибками 2 (не выплачено)',
      'C',
      'отчёт /r.csv',
      'март.csv будет отклонён',
      'повторно к выплате 3 строки (4 500,00 ₽) из пакета batch-00000000000000cc',
      'проверено ИНН в банке: 1; платёжная сессия не создавалась',
    ]);
    expect(said('en')).toEqual([
      '4 valid rows (14 000,00 ₽), 0 invalid',
      '1 valid row (1 234,56 ₽), 2 invalid',
      'submitted by maria; payrun batch status batch-00000000000000cc says whether it waits for approval',
      'batch-00000000000000cc: already submitted (as март.csv); nothing is paid twice',
      'C, invalid 2 (not paid)',
      'C',
      'report /r.csv',
      'март.csv would be rejected',
      '3 rows (4 500,00 ₽) retried from batch-00000000000000cc',
      'checked 1 tax number with the bank; no payment session was created',
    ]);
  });

  it('retry-failed and approve|reject refusing, naming the batch, before anything is started or signed', () => {
    const retryId = 'batch-00000000000000cc-retry-1';
    const said = (lang: 'ru' | 'en') => [
      t('retry.not_finished', { batchId: 'batch-00000000000000cc' }, lang),
      t('retry.already_retried', { batchId: 'batch-00000000000000cc', later: retryId }, lang),
      t('retry.nothing', { batchId: 'batch-00000000000000cc' }, lang),
      t('decision.not_in_store', { batchId: 'batch-00000000000000cc', where: '/data/store' }, lang),
      t('decision.file_changed', { file: 'март.csv', batchId: 'batch-00000000000000cc' }, lang),
      t('decision.own_batch', { person: 'maria' }, lang),
    ];
    expect(said('ru')).toEqual([
      'пакет batch-00000000000000cc ещё не завершён; повторить его невыплаченные строки можно, когда он завершится',
      `пакет batch-00000000000000cc уже повторён как ${retryId}; повторите тот, когда он завершится (payrun batch retry-failed ${retryId})`,
      'в пакете batch-00000000000000cc нет строк для повтора (не выплачено, отклонено, истекло, отменено, требует проверки)',
      'пакета batch-00000000000000cc нет в хранилище пакетов /data/store',
      'файл изменился после отправки: март.csv — не файл пакета batch-00000000000000cc',
      'этот пакет отправили вы (как maria): утвердить его должен кто-то другой',
    ]);
    expect(said('en')).toEqual([
      'batch batch-00000000000000cc has not finished yet; retry its failed rows once it is done',
      `batch batch-00000000000000cc was already retried as ${retryId}; retry that one (payrun batch retry-failed ${retryId}) once it is done`,
      'batch batch-00000000000000cc has no failed, rejected, expired, cancelled or needs_attention rows to retry',
      'batch batch-00000000000000cc is not in the batch store /data/store',
      'this file changed since it was submitted: март.csv is not the file of batch-00000000000000cc',
      'you submitted this batch (as maria): an approver must be someone else',
    ]);
  });

  it("the dry run's progress of its tax-number checks, off a terminal and on one", () => {
    let clock = 0;
    const lines: string[] = [];
    const reporter = dryRunProgressReporter({ write: (l) => lines.push(l) }, () => clock);
    reporter.onProgress({ done: 0, total: 20 });
    clock = 2_000;
    reporter.onProgress({ done: 2, total: 20 });
    clock = 200_000;
    reporter.onProgress({ done: 20, total: 20 });
    expect(lines).toEqual([
      'проверяю в банке ИНН: 20\n',
      'проверено 2 из 20 ИНН (10 %), осталось около 18 с\n',
      'проверено 20 из 20 ИНН (100 %)\n',
    ]);
    let out = '';
    const bar = dryRunProgressReporter({ write: (s) => (out += s), isTTY: true });
    bar.onProgress({ done: 0, total: 3 });
    bar.onProgress({ done: 3, total: 3 });
    bar.stop();
    expect(out).toContain('проверка ИНН');
    expect(out).toContain('3/3 | 100 %');
    expect(out).not.toMatch(/tax number|ETA/);
  });
});
