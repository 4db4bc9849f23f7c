import type { BatchPaths } from '../../src/batch/services/config';
import { batchStoreFor } from '../../src/batch/store/open';
import { TEST_CARDS } from '../../src/sandbox/test-values';
import { approveBatchUpdate } from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { startStack, type Stack } from '../harness/stack';
import { readRawChunk, writeRawChunk } from '../harness/store-tamper';

/**
 * A store writer without the payload keys against a genuine approval (issue 34): the approver signed
 * a 111,11 ₽ file; the store's chunk is then made to say 55 555,55 ₽ to another card, in plain JSON or
 * by copying in another batch's sealed chunk. Nothing may be paid (the sandbox's ledger says), and the
 * batch must say what changed where an operator reads it (`payrun batch status`).
 */
describe('the rows a batch pays are the rows of the file that was approved', () => {
  let stack: Stack;
  let paths: BatchPaths;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    stack = await startStack();
    paths = batchTestPaths();
    env = { ...stack.cliEnv('viewer'), PAYRUN_DATA_DIR: paths.dataDir, PAYRUN_BATCHES_DIR: paths.batchesDir };
  });
  afterAll(async () => stack?.stop());

  const THEFT = { amount: '55555.55', card: TEST_CARDS.SUCCESS_MASTERCARD };

  /** A 111,11 ₽ batch waiting for approval. */
  async function awaitingApproval(reference: string) {
    const r = await dropAndSubmit(
      stack,
      paths,
      `${reference}.csv`,
      batchCsv([{ reference, amount: '111.11' }]),
      { batchOptions: { requireApproval: true } },
    );
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(handle, (p) => p.phase === 'awaiting_approval');
    return { batchId: r.batchId, handle };
  }

  /** Approves for real, then waits for the batch to end: it must fail, and say why. */
  async function approveAndFail(batchId: string) {
    const handle = batchHandle(stack, batchId);
    const answer = await handle.executeUpdate(approveBatchUpdate, {
      args: [await batchDecision(stack, paths.dataDir, batchId, 'approver')],
    });
    expect(answer).toMatch(/^approved by approver \(1 of 1\): paying may start$/);
    const failure = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    let cause = failure;
    while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
    expect(cause).toMatchObject({ type: 'BatchNotTheApprovedFile', nonRetryable: true });
    const status = await runCli(['batch', 'status', batchId], env);
    expect(status.code).toBe(0);
    return { reason: (cause as Error).message, status: status.stdout };
  }

  it('a chunk rewritten in plain JSON after a genuine approval pays nothing and names the row that changed', async () => {
    const reference = `${uniquePrefix()}-plain`;
    const { batchId } = await awaitingApproval(reference);
    const rows = await batchStoreFor(paths.dataDir).readChunk(batchId, 0);
    const [row] = rows;
    const edited = [
      {
        ...row,
        request: {
          ...row!.request,
          amount: 5_555_555,
          method: { ...row!.request.method, cardNumber: THEFT.card },
        },
      },
    ];
    await writeRawChunk(paths.dataDir, batchId, 0, JSON.stringify(edited));

    const { reason, status } = await approveAndFail(batchId);
    const named = `row 2 (reference ${reference}, chunk 0) of batch ${batchId} differs from the approved file's row 2`;
    expect(reason).toBe(`batch ${batchId} pays nothing: ${named}`);
    expect(status).toContain(
      `пакет остановлен, больше ничего из него не выплачивается: batch ${batchId} pays nothing: ${named}`,
    );
    expect(status).not.toContain(THEFT.card);
    expect(status).toContain('пока ничего не завершено');
    expect([...ledgerPayouts(stack, [reference]).values()]).toEqual([0]);
  });

  it("another batch's sealed chunk copied in after a genuine approval pays nothing and names the chunk", async () => {
    const p = uniquePrefix();
    const reference = `${p}-sealed`;
    const { batchId } = await awaitingApproval(reference);
    // The insider's own batch: the same reference, their amount and card; never approved.
    const theirs = await dropAndSubmit(stack, paths, `${p}-theirs.csv`, batchCsv([{ reference, ...THEFT }]), {
      batchOptions: { requireApproval: true },
    });
    if (theirs.status !== 'started') throw new Error(`not started: ${theirs.status}`);
    await writeRawChunk(paths.dataDir, batchId, 0, await readRawChunk(paths.dataDir, theirs.batchId, 0));

    const { reason, status } = await approveAndFail(batchId);
    const named = `the batch store's entry "chunk/0" of batch ${batchId} does not open as itself: sealed for another batch, file or position, or altered`;
    expect(reason).toBe(`batch ${batchId} pays nothing: ${named}`);
    expect(status).toContain(named);
    expect([...ledgerPayouts(stack, [reference]).values()]).toEqual([0]);
    await batchHandle(stack, theirs.batchId).terminate('test over');
  });
});
