import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/config';
import { batchCsv, batchTestPaths, ledgerPayouts, uniquePrefix } from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { startStack, type Stack } from '../harness/stack';

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
    const first = await runCli(['batch', 'submit', fileWith('cli.csv', bytes), '--follow'], env);
    expect(first).toMatchObject({ code: 0 });
    const batchId = first.stdout.split('\n')[0]!;
    expect(batchId).toMatch(/^batch-[0-9a-f]{16}$/);
    expect(first.stdout).toMatch(/выплачено 2/);
    expect(first.stdout).toMatch(/report .*\.report\.csv/);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);

    const again = await runCli(['batch', 'submit', fileWith('cli-again.csv', bytes)], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${batchId}: already submitted`);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);

    const status = await runCli(['payout', 'status', references[0]!], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/succeeded/);
    expect(status.stdout).toMatch(/receipt https?:\/\//);

    const batchStatus = await runCli(['batch', 'status', batchId], env);
    expect(batchStatus.code).toBe(0);
    expect(batchStatus.stdout).toMatch(/завершён/);
  });

  it('rejects an invalid file with exit code 1, naming row, column and rule, and pays nothing', async () => {
    const p = uniquePrefix();
    const bytes = batchCsv([{ reference: `${p}-1` }, { reference: `${p}-2`, inn: '123456789012' }]);
    const r = await runCli(['batch', 'submit', fileWith('bad.csv', bytes)], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/строка 3, столбец inn: .*\(inn_checksum\)/);
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
    expect(stack.sandbox.ledger().length).toBe(before);
  });

  it('answers wrong usage with exit code 2', async () => {
    const r = await runCli(['batch', 'frobnicate'], env);
    expect(r.code).toBe(2);
  });
});
