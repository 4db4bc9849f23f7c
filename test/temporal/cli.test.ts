import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { batchCsv, batchTestPaths, ledgerPayouts, uniquePrefix } from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { startStack, type Stack } from '../harness/stack';
import { TEST_CARDS } from '../../src/sandbox/test-values';

// The `payrun` command line as an accountant or operator runs it: its own process, real exit codes.
describe('payrun CLI against the stack', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    stack = await startStack();
    paths = batchTestPaths();
    env = {
      ...stack.cliEnv('preparer'),
      PAYRUN_DATA_DIR: paths.dataDir,
      PAYRUN_BATCHES_DIR: paths.batchesDir,
    };
  });
  afterAll(async () => stack?.stop());

  const fileWith = (name: string, bytes: Buffer) => {
    const file = join(paths.batchesDir, name);
    writeFileSync(file, bytes);
    return file;
  };

  it('submits and follows a batch, refuses to pay it twice, and reports a payout', async () => {
    const p = uniquePrefix();
    const references = [`${p}-1`, `${p}-2`];
    const bytes = batchCsv(references.map((reference) => ({ reference })));
    const first = await runCli(
      ['batch', 'submit', fileWith('cli.csv', bytes), '--follow', '--expect-total', '3 000,00'],
      env,
    );
    expect(first).toMatchObject({ code: 0 });
    const batchId = first.stdout.split('\n')[0]!;
    expect(batchId).toMatch(/^batch-[0-9a-f]{16}$/);
    // What accounting reads is Russian by default (PAYRUN_LANG=en: English, the next test), money in roubles.
    expect(first.stderr).toContain('к выплате 2 строки (3 000,00 ₽), с ошибками 0');
    expect(first.stderr).toContain(
      `отправил(а) preparer; ждёт ли пакет утверждения, покажет payrun batch status ${batchId}`,
    );
    expect(first.stdout).toContain('\nвыплачено 2 (3 000,00 ₽)\n');
    expect(first.stdout).toMatch(/\nотчёт .*\.report\.csv\nитоги .*\n$/);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);

    const again = await runCli(['batch', 'submit', fileWith('cli-again.csv', bytes)], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${batchId}: уже отправлен (как `);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);

    const status = await runCli(['payout', 'status', references[0]!], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/выплачено|зачислено/);
    expect(status.stdout).toMatch(/чек https?:\/\//);

    const batchStatus = await runCli(['batch', 'status', batchId], env);
    expect(batchStatus.code).toBe(0);
    expect(batchStatus.stdout).toMatch(/завершён/);
  });

  it('says the same in English with PAYRUN_LANG=en; retry-failed pays only the failed row again, in either language', async () => {
    const p = uniquePrefix();
    const en = { ...env, PAYRUN_LANG: 'en' };
    const bytes = batchCsv([
      { reference: `${p}-1` },
      { reference: `${p}-2`, card: TEST_CARDS.DECLINED_BY_ISSUER },
    ]);
    const first = await runCli(['batch', 'submit', fileWith('cli-en.csv', bytes), '--follow'], en);
    expect(first).toMatchObject({ code: 0 });
    const batchId = first.stdout.split('\n')[0]!;
    expect(first.stderr).toContain('2 valid rows (3 000,00 ₽), 0 invalid');
    expect(first.stderr).toContain(
      `submitted by preparer; payrun batch status ${batchId} says whether it waits for approval`,
    );
    // The states in the order the batch first saw them end.
    expect(first.stdout.split('\n')[1]!.split(', ').sort()).toEqual([
      'failed 1 (1 500,00 ₽)',
      'succeeded 1 (1 500,00 ₽)',
    ]);
    expect(first.stdout).toMatch(/\nreport .*\.report\.csv\nsummary .*\n$/);
    const again = await runCli(['batch', 'submit', fileWith('cli-en-again.csv', bytes)], en);
    expect(again.stdout).toBe(`${batchId}: already submitted (as cli-en.csv); nothing is paid twice\n`);

    const retry = await runCli(['batch', 'retry-failed', batchId, '--follow'], en);
    expect(retry).toMatchObject({ code: 0 });
    const retryId = retry.stdout.split('\n')[0]!;
    expect(retry.stderr).toContain(`1 row (1 500,00 ₽) retried from ${batchId}`);
    expect(retry.stdout).toMatch(/\nfailed 1 \(1 500,00 ₽\)\nreport .*\.report\.csv\n$/);
    const inRussian = await runCli(['batch', 'retry-failed', retryId], env);
    expect(inRussian).toMatchObject({ code: 0 });
    expect(inRussian.stderr).toContain(`повторно к выплате 1 строка (1 500,00 ₽) из пакета ${retryId}`);
    expect([...ledgerPayouts(stack, [`${p}-1`, `${p}-2`]).values()]).toEqual([1, 0]);
  });

  it('rejects an invalid file with exit code 1, naming row, column and rule, and pays nothing', async () => {
    const p = uniquePrefix();
    const bytes = batchCsv([{ reference: `${p}-1` }, { reference: `${p}-2`, inn: '123456789012' }]);
    const r = await runCli(['batch', 'submit', fileWith('bad.csv', bytes)], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/строка 3, столбец «ИНН»: .*\(inn_checksum\)/);
    expect(r.stderr).toMatch(/отклонён: 1 ошибка, ничего не выплачено/);
    expect([...ledgerPayouts(stack, [`${p}-1`, `${p}-2`]).values()]).toEqual([0, 0]);
  });

  it('dry-runs without creating a bank session', async () => {
    const p = uniquePrefix();
    const before = stack.sandbox.ledger().length;
    const r = await runCli(
      ['batch', 'submit', fileWith('dry.csv', batchCsv([{ reference: `${p}-1` }])), '--dry-run'],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/будет выплачено/);
    expect(r.stdout).toMatch(/проверено ИНН в банке: \d+; платёжная сессия не создавалась/);
    // Progress on stderr (not a terminal here: lines, not a bar).
    expect(r.stderr).toContain('проверяю в банке ИНН: 1\n');
    expect(r.stderr).toContain('проверено 1 из 1 ИНН (100 %)\n');
    expect(stack.sandbox.ledger().length).toBe(before);
  });

  it('answers wrong usage with exit code 2', async () => {
    const r = await runCli(['batch', 'frobnicate'], env);
    expect(r.code).toBe(2);
  });
});
