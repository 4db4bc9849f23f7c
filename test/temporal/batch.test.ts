import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { InboxWatcher } from '../../src/batch/commands/watch';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  readReport,
  submitOptions,
  uniquePrefix,
} from '../harness/batches';
import { recordHistoryIfAsked } from '../harness/replay';
import { folderStore, reportPathOf } from '../harness/reports';
import { startStack, type Stack } from '../harness/stack';

// Batch files end to end: submit → batch workflow → child payouts against the sandbox → report.
describe('batch workflow end to end', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('pays a Windows-1251 semicolon file and reports in the same encoding and delimiter', async () => {
    const p = uniquePrefix();
    const rows = [
      { reference: `${p}-ok1`, amount: '1 234,56' },
      { reference: `${p}-ok2`, amount: '12 000' },
      { reference: `${p}-plain`, amount: '999,9', selfEmployed: false },
      { reference: `${p}-declined`, amount: '100,00', card: TEST_CARDS.DECLINED_BY_ISSUER },
      { reference: `${p}-notse`, amount: '200,00', inn: TEST_INNS.NOT_SELF_EMPLOYED },
    ];
    const submitted = await dropAndSubmit(
      stack,
      paths,
      'июнь.csv',
      batchCsv(rows, { win1251: true, totalRow: '14 534,46' }),
    );
    expect(submitted).toMatchObject({ status: 'started', valid: 5, invalid: 0, totalKopecks: 1_453_446 });
    if (submitted.status !== 'started') throw new Error('not started');
    expect(submitted.batchId).toMatch(/^batch-[0-9a-f]{16}$/);

    const result = await batchHandle(stack, submitted.batchId).result();
    await recordHistoryIfAsked('batch-paid', batchHandle(stack, submitted.batchId));
    expect(result.counts).toEqual({ succeeded: 3, failed: 1, rejected: 1 });
    expect(result.amounts).toEqual({ succeeded: 1_423_446, failed: 10_000, rejected: 20_000 });
    expect(result.reportPath).toBe(join(paths.batchesDir, 'done', 'июнь.report.csv'));
    const reportPath = await reportPathOf(paths, submitted.batchId, result);
    expect(existsSync(join(paths.batchesDir, 'done', 'июнь.csv'))).toBe(true);
    expect(existsSync(join(paths.batchesDir, 'processing', 'июнь.csv'))).toBe(false);

    const raw = readFileSync(reportPath);
    expect(raw.includes(Buffer.from('Референс', 'utf8'))).toBe(false); // not UTF-8 …
    const report = readReport(reportPath, true); // … but Windows-1251 with ';'
    const byRef = new Map(report.map((r) => [r['Референс'], r]));
    expect(byRef.get(`${p}-ok1`)).toMatchObject({
      state: 'succeeded',
      bank_session_id: expect.stringMatching(/^ps_/),
    });
    expect(byRef.get(`${p}-ok1`)!.receipt_link).toMatch(/^https?:/);
    expect(byRef.get(`${p}-plain`)).toMatchObject({ state: 'succeeded', receipt_link: '' });
    expect(byRef.get(`${p}-declined`)).toMatchObject({
      state: 'failed',
      error_code: 'declined_by_issuer_bank',
    });
    expect(byRef.get(`${p}-notse`)).toMatchObject({ state: 'rejected', error_code: 'not_self_employed' });
    expect(byRef.get('ИТОГО')).toBeDefined();
    expect(readFileSync(result.summaryPath, 'utf8')).toContain('выплачено 3');

    const paid = ledgerPayouts(
      stack,
      rows.map((r) => r.reference),
    );
    expect([...paid.values()]).toEqual([1, 1, 1, 0, 0]);
  });

  it('rejects a whole file with an invalid row and pays nothing; --partial pays the valid rows', async () => {
    const p = uniquePrefix();
    const rows = [
      { reference: `${p}-a` },
      { reference: `${p}-bad`, inn: '123456789012' },
      { reference: `${p}-b` },
    ];
    const ledgerBefore = stack.sandbox.ledger().length;
    const bytes = batchCsv(rows);
    const refused = await dropAndSubmit(stack, paths, 'with-error.csv', bytes);
    expect(refused.status).toBe('rejected');
    if (refused.status !== 'rejected') throw new Error('not rejected');
    expect(refused.errors).toEqual([
      expect.objectContaining({ row: 3, column: 'inn', rule: 'inn_checksum' }),
    ]);
    expect(readFileSync(refused.errorsPath, 'utf8')).toMatch(
      /^строка 3, столбец «ИНН»: .*\(inn_checksum\)\n$/,
    );
    expect(refused.rejectedPath).toBe(join(paths.batchesDir, 'rejected', 'with-error.csv'));
    expect(existsSync(join(paths.batchesDir, 'inbox', 'with-error.csv'))).toBe(false);
    await expect(batchHandle(stack, refused.batchId).describe()).rejects.toThrow();
    expect(stack.sandbox.ledger().length).toBe(ledgerBefore);

    const partial = await dropAndSubmit(stack, paths, 'with-error.csv', bytes, { policy: 'partial' });
    expect(partial).toMatchObject({ status: 'started', valid: 2, invalid: 1 });
    const result = await batchHandle(stack, partial.batchId).result();
    const reportPath = await reportPathOf(paths, partial.batchId, result);
    expect(result.counts).toEqual({ succeeded: 2 });
    const report = readReport(reportPath, false);
    expect(report.map((r) => r.state)).toEqual(['succeeded', 'invalid', 'succeeded']);
    expect(report[1]).toMatchObject({ error_code: 'inn_checksum' });
    expect([
      ...ledgerPayouts(
        stack,
        rows.map((r) => r.reference),
      ).values(),
    ]).toEqual([1, 0, 1]);
  });

  it('rejects a file whose control total does not match', async () => {
    const p = uniquePrefix();
    const bytes = batchCsv([{ reference: `${p}-a`, amount: '100,00' }], {
      win1251: true,
      totalRow: '200,00',
    });
    const refused = await dropAndSubmit(stack, paths, 'total.csv', bytes, { policy: 'partial' });
    expect(refused.status).toBe('rejected');
    if (refused.status !== 'rejected') throw new Error('not rejected');
    expect(refused.errors[0]).toMatchObject({ rule: 'control_total' });
    const optionMismatch = await dropAndSubmit(
      stack,
      paths,
      'total2.csv',
      batchCsv([{ reference: `${p}-b`, amount: '100.00' }]),
      {
        expectTotalKopecks: 10_001,
      },
    );
    expect(optionMismatch.status).toBe('rejected');
    expect(ledgerPayouts(stack, [`${p}-a`, `${p}-b`]).get(`${p}-a`)).toBe(0);
  });

  it('pays a re-dropped file once and a corrected file only for its new references', async () => {
    const p = uniquePrefix();
    const first = [{ reference: `${p}-1` }, { reference: `${p}-2` }];
    const bytes = batchCsv(first);
    const one = await dropAndSubmit(stack, paths, 'week.csv', bytes);
    if (one.status !== 'started') throw new Error(`first submission: ${one.status}`);
    await batchHandle(stack, one.batchId).result();

    const again = await dropAndSubmit(stack, paths, 'week-copy.csv', bytes);
    expect(again).toMatchObject({ status: 'already_submitted', batchId: one.batchId, firstFile: 'week.csv' });
    expect(readFileSync(join(paths.batchesDir, 'rejected', 'week-copy.csv.errors.txt'), 'utf8')).toContain(
      `этот файл уже отправлен как ${one.batchId}`,
    );

    const corrected = batchCsv([...first, { reference: `${p}-3` }]);
    const fixed = await dropAndSubmit(stack, paths, 'week-fixed.csv', corrected);
    if (fixed.status !== 'started') throw new Error(`corrected submission: ${fixed.status}`);
    expect(fixed.batchId).not.toBe(one.batchId);
    const result = await batchHandle(stack, fixed.batchId).result();
    const reportPath = await reportPathOf(paths, fixed.batchId, result);
    expect(result.counts).toEqual({ already_paid: 2, succeeded: 1 });
    const report = readReport(reportPath, false);
    expect(report.map((r) => r.state)).toEqual(['already_paid', 'already_paid', 'succeeded']);
    expect(report[0]!.reason).toContain(`уже выплачено пакетом ${one.batchId}`);
    expect(report[0]!.bank_session_id).toMatch(/^ps_/);
    expect([...ledgerPayouts(stack, [`${p}-1`, `${p}-2`, `${p}-3`]).values()]).toEqual([1, 1, 1]);
  });

  it('the watcher takes only stable files, ignores temp names and submits', async () => {
    const p = uniquePrefix();
    const inbox = join(paths.batchesDir, 'inbox');
    const watcher = new InboxWatcher(stack.client, submitOptions(stack, paths));
    const growing = join(inbox, 'growing.csv');
    writeFileSync(growing, batchCsv([{ reference: `${p}-g1` }]));
    for (const temp of ['~$open.csv', '.hidden.csv', 'upload.csv.part', 'copy.tmp'])
      writeFileSync(join(inbox, temp), batchCsv([{ reference: `${p}-temp` }]));
    expect(await watcher.pollOnce()).toEqual([]); // first sight: maybe still being written
    appendFileSync(
      growing,
      `${p}-g2,Ivanova,Anna,${TEST_INNS.SELF_EMPLOYED_LINKED},card,${TEST_CARDS.SUCCESS},"10.00",RUB,Design,yes\r\n`,
    );
    expect(await watcher.pollOnce()).toEqual([]); // it changed: still not taken
    const events = await watcher.pollOnce();
    expect(events).toEqual([{ kind: 'submitted', file: growing, batchId: expect.stringMatching(/^batch-/) }]);
    expect(existsSync(growing)).toBe(false);
    expect(existsSync(join(inbox, '~$open.csv'))).toBe(true);
    const submitted = events[0] as { batchId: string };
    const result = await batchHandle(stack, submitted.batchId).result();
    expect(result.counts).toEqual({ succeeded: 2 });
    // Nothing more is submitted; with a shared store the watcher settles the finished file into done/.
    expect(await watcher.pollOnce()).toEqual(
      folderStore(paths)
        ? []
        : [
            {
              kind: 'settled',
              file: join(paths.batchesDir, 'processing', 'growing.csv'),
              batchId: submitted.batchId,
            },
          ],
    );
    expect([...ledgerPayouts(stack, [`${p}-g1`, `${p}-g2`, `${p}-temp`]).values()]).toEqual([1, 1, 0]);
  });
});
