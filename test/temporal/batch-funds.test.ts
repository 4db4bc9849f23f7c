import type { BatchPaths } from '../../src/batch/services/config';
import { retryFailed } from '../../src/batch/commands/retry';
import { largestStoredRows } from '../../src/batch/commands/amounts';
import { batchStoreFor } from '../../src/batch/store/open';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  readReport,
  submitOptions,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { describeProgress, LARGEST_SHOWN } from '../../src/cli/follow';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { reportPathOf } from '../harness/reports';

// A small deposit: the batch waits for funds; payouts that ran out of deposit are paid by retry-failed.
describe('batch funds and retry-failed', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack({ sandbox: { accounts: { initialDepositKopecks: 500_000 } } });
  });
  afterAll(async () => stack?.stop());

  it('waits for funds while the deposit is short and pays after a top-up', async () => {
    const p = uniquePrefix();
    const references = [`${p}-1`, `${p}-2`];
    const rows = references.map((reference) => ({ reference, amount: '4000.00' }));
    const r = await dropAndSubmit(stack, paths, 'funds.csv', batchCsv(rows));
    const handle = batchHandle(stack, r.batchId);
    const waiting = await waitForProgress(handle, (x) => x.phase === 'awaiting_funds');
    expect(waiting.funds).toMatchObject({ neededKopecks: 800_000, balanceKopecks: 500_000 });
    await new Promise((res) => setTimeout(res, 1_200));
    expect((await waitForProgress(handle, () => true)).phase).toBe('awaiting_funds');
    expect([...ledgerPayouts(stack, references).values()]).toEqual([0, 0]);

    stack.sandbox.topUpDeposit(1_000_000);
    const result = await handle.result();
    expect(result.counts).toEqual({ succeeded: 2 });
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);
  });

  it('retry-failed pays only the rows whose payout failed, once', async () => {
    // The deposit now holds 7 000 RUB: of three 5 000 RUB payouts paid one at a time, one fits.
    const p = uniquePrefix();
    const references = [`${p}-1`, `${p}-2`, `${p}-3`];
    const rows = references.map((reference) => ({ reference, amount: '5000.00' }));
    const r = await dropAndSubmit(stack, paths, 'retry.csv', batchCsv(rows), {
      batchOptions: { checkFunds: false, maxInFlight: 1 },
    });
    const first = await batchHandle(stack, r.batchId).result();
    expect(first.counts).toEqual({ succeeded: 1, failed: 2 });
    expect(readReport(await reportPathOf(paths, r.batchId, first), false).map((x) => x.error_code)).toEqual([
      '',
      'insufficient_funds',
      'insufficient_funds',
    ]);

    stack.sandbox.topUpDeposit(2_000_000);
    const retry = await retryFailed(stack.client, r.batchId, submitOptions(stack, paths));
    expect(retry).toMatchObject({ batchId: `${r.batchId}-retry-1`, rows: 2, totalKopecks: 1_000_000 });
    const second = await batchHandle(stack, retry.batchId).result();
    expect(second.counts).toEqual({ succeeded: 2 });
    expect(second.reportPath).toMatch(/retry\.retry-1\.report\.csv$/);
    expect(readReport(await reportPathOf(paths, retry.batchId, second), false).map((x) => x.state)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1, 1]);
    expect((await batchStoreFor(paths.dataDir).readFinal(retry.batchId))?.summary).toContain('выплачено 3');
    await expect(retryFailed(stack.client, retry.batchId, submitOptions(stack, paths))).rejects.toThrow(
      /нет строк для повтора/,
    );
  });

  it('goes on as soon as a nominal_topup arrives, long before its next re-check', async () => {
    // The deposit holds 12 000 RUB here; this batch needs 20 000 and re-checks only every 10 minutes.
    const p = uniquePrefix();
    const references = [`${p}-1`, `${p}-2`];
    const rows = references.map((reference) => ({ reference, amount: '10000.00' }));
    const r = await dropAndSubmit(stack, paths, 'topup.csv', batchCsv(rows), {
      batchOptions: { fundsRecheckMs: 600_000 },
    });
    const handle = batchHandle(stack, r.batchId);
    const waiting = await waitForProgress(
      handle,
      (x) => x.phase === 'awaiting_funds' && x.funds !== undefined,
    );
    // `batch status` names the shortfall and the rows that need the money (issue 25).
    const largestRows = await largestStoredRows(batchStoreFor(paths.dataDir), r.batchId, LARGEST_SHOWN);
    const status = describeProgress(waiting, { largestRows }).join('\n');
    expect(status).toMatch(/не хватает [\d ]+,\d\d ₽: пакет ждёт пополнения депозита/);
    expect(status).toContain(
      `самые крупные строки: строка 2 ${references[0]} 10 000,00 ₽; строка 3 ${references[1]} 10 000,00 ₽`,
    );
    // Visibility must show the batch as awaiting_funds before the ingress can find it.
    await waitFor(
      async () =>
        (
          await stack.client.workflow.count(
            `PayrunBatchId = "${r.batchId}" AND PayrunState = "awaiting_funds"`,
          )
        ).count === 1,
    );
    const toppedUpAt = Date.now();
    stack.sandbox.topUpDeposit(1_000_000); // the sandbox sends nominal_topup to the ingress
    const result = await handle.result();
    expect(Date.now() - toppedUpAt).toBeLessThan(60_000);
    expect(result.counts).toEqual({ succeeded: 2 });
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1]);
  });
});
