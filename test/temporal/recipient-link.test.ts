import type { BatchPaths } from '../../src/batch/services/config';
import { retryFailed } from '../../src/batch/commands/retry';
import { TEST_INNS } from '../../src/sandbox/test-values';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  readReport,
  uniquePrefix,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { requestsTo } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';
import { reportPathOf } from '../harness/reports';

/**
 * A row refused `not_linked` is not a dead end: `payrun recipient link` asks the bank to send the person a
 * link request (once), the person links payrun's partner (the sandbox plays them), and `retry-failed` pays
 * the row, exactly once, because the retry asks the bank afresh instead of reusing the refusing verdict.
 */
describe('linking a not_linked recipient', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack({ policy: NO_APPROVALS });
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  const inn = TEST_INNS.SELF_EMPLOYED_NOT_LINKED;
  const report = async (batchId: string) =>
    readReport(await reportPathOf(paths, batchId, await batchHandle(stack, batchId).result()), false);
  const cli = (...args: string[]) => runCli(['recipient', ...args], stack.cliEnv('preparer'));

  it('is asked to link and paid once linked, exactly once', async () => {
    const reference = `${uniquePrefix()}-link`;
    const first = await dropAndSubmit(stack, paths, 'not-linked.csv', batchCsv([{ reference, inn }]));
    expect((await report(first.batchId)).map((r) => [r.state, r.error_code])).toEqual([
      ['rejected', 'not_linked'],
    ]);

    // The link request: sent once, its link printed for accounting to pass on, the tax number masked.
    const before = await requestsTo(stack, 'self_employed/onboarding/create');
    const sent = await cli('link', inn, '--return-url', 'https://accounting.example/linked');
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    expect(sent.stdout).not.toContain(inn);
    expect(sent.stdout).toContain(`********${inn.slice(-4)}: банк отправил запрос на подключение`);
    const url = new RegExp(`${stack.sandbox.url}/__sandbox/onboarding/\\S+(?= \\(действует до)`).exec(
      sent.stdout,
    )?.[0];
    expect(url).toBeDefined();
    const again = await cli('link', inn);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('запрос на подключение уже отправлен');
    expect(again.stdout).toContain(url);
    expect(await requestsTo(stack, 'self_employed/onboarding/create')).toBe(before + 1);
    expect((await cli('show', inn)).stdout).toMatch(/запрос на подключение партнёра: .*: ждёт получателя/);

    // The person opens the link and links payrun's partner in the bank's app.
    expect((await fetch(url!)).status).toBe(200);

    const retry = await retryFailed(stack.client, first.batchId, {
      paths,
      taskQueue: stack.taskQueue,
      submitter: stack.signer('preparer'),
    });
    expect((await report(retry.batchId)).map((r) => r.state)).toEqual(['succeeded']);
    expect([...ledgerPayouts(stack, [reference]).values()]).toEqual([1]);
    // Nothing is left to retry: a second retry-failed pays nothing.
    await expect(
      retryFailed(stack.client, retry.batchId, {
        paths,
        taskQueue: stack.taskQueue,
        submitter: stack.signer('preparer'),
      }),
    ).rejects.toThrow(/нет строк для повтора/);
    expect([...ledgerPayouts(stack, [reference]).values()]).toEqual([1]);
    expect((await cli('show', inn)).stdout).toMatch(/запрос на подключение партнёра: .*: партнёр подключён/);
    expect(await requestsTo(stack, 'self_employed/onboarding/create')).toBe(before + 1);
  });

  it('refuses a tax number that cannot be a self-employed person, and an address that is not http(s)', async () => {
    const short = await cli('link', '7707083893');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/ИНН самозанятого: 12 цифр/);
    const bad = await cli('link', inn, '--return-url', 'javascript:alert(1)');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ошибка: параметр --return-url: нужен адрес http\(s\)/);
  });
});
