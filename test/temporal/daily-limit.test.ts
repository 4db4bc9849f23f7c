import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { batchStoreFor } from '../../src/batch/store/open';
import { approveBatchUpdate, batchProgressQuery } from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  FAST_PAYOUTS,
  ledgerPayouts,
  uniquePrefix,
  waitForProgress,
} from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { outcome, startPayout } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';

/**
 * Splitting a file under the two-approver threshold: one approver may approve alone 2 000,00 ₽ a Moscow
 * day, summed over files (a test file's row is 1 500,00 ₽). The sum comes from the batch store's signed
 * approvals, re-verified, and the Temporal server's record of which batches ran past their approval wait.
 */
const RULES = { two_approvers_above: null, one_approver_daily_limit: '2 000,00' };

describe('what one approver may approve alone in a day', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    stack = await startStack({ policy: RULES });
    paths = batchTestPaths();
  });
  afterAll(async () => stack?.stop());

  const paid = (references: string[]) => [...ledgerPayouts(stack, references).values()];
  const submit = async () => {
    const references = [`${uniquePrefix()}-a`];
    const r = await dropAndSubmit(
      stack,
      paths,
      `${references[0]}.csv`,
      batchCsv(references.map((reference) => ({ reference }))),
    );
    if (r.status !== 'started') throw new Error(`not started: ${r.status}`);
    const handle = batchHandle(stack, r.batchId);
    await waitForProgress(
      handle,
      (p) => p.phase === 'awaiting_approval' && p.approval?.because !== undefined,
    );
    return { batchId: r.batchId, references, handle };
  };
  const approve = async (batchId: string, person: string) =>
    batchHandle(stack, batchId).executeUpdate(approveBatchUpdate, {
      args: [await batchDecision(stack, paths.dataDir, batchId, person)],
    });

  it('a second file that would pass one approver’s daily sum waits for another approver, then pays once', async () => {
    const first = await submit();
    expect(await approve(first.batchId, 'approver')).toBe('approved by approver (1 of 1): paying may start');
    expect((await first.handle.result()).counts).toEqual({ succeeded: 1 });

    const second = await submit();
    expect(await approve(second.batchId, 'approver')).toBe(
      'approved by approver (1 of 2): waiting for another approver',
    );
    const waiting = await second.handle.query(batchProgressQuery);
    expect(waiting).toMatchObject({ phase: 'awaiting_approval', dispatched: 0 });
    expect(waiting.approval).toMatchObject({ needed: 2, approvedBy: ['approver'] });
    expect(waiting.approval?.because).toMatch(
      /; approver's approvals alone on \d{4}-\d{2}-\d{2} would total 3 000,00 ₽ with this file \(1 before it\), more than the daily limit of 2 000,00 ₽: 2 approvers needed$/,
    );
    const status = await runCli(['batch', 'status', second.batchId], stack.cliEnv('viewer'));
    expect(status.stdout).toMatch(
      /одобрения approver без второго человека за \d{4}-\d{2}-\d{2} с этим файлом составили бы 3 000,00 ₽ — больше дневного лимита 2 000,00 ₽: нужно одобрений: 2/,
    );
    // A payout of the waiting file started by hand (Temporal start rights): only the batch starts its rows.
    const row = (await batchStoreFor(paths.dataDir).readChunk(second.batchId, 0))[0]!.request;
    const byHand = await outcome(await startPayout(stack, row, FAST_PAYOUTS, second.batchId));
    expect(byHand).toMatchObject({ state: 'rejected', failure: { code: 'not_approved' } });
    expect(byHand.failure?.reason).toBe(
      `a payout of batch ${second.batchId} pays only when that batch starts it; this one was started by hand`,
    );
    expect(paid(second.references)).toEqual([0]);

    expect(await approve(second.batchId, 'approver2')).toBe(
      'approved by approver2 (2 of 2): paying may start',
    );
    expect((await second.handle.result()).counts).toEqual({ succeeded: 1 });
    expect(paid([...first.references, ...second.references])).toEqual([1, 1]);
  });

  it('deleting the record of a file already paid does not free the approver’s sum: a lone approval waits', async () => {
    // The files of the test above: the first, approved alone and paid, loses its record.
    const ids = await batchStoreFor(paths.dataDir).batchIds();
    const metas = await Promise.all(ids.map((id) => batchStoreFor(paths.dataDir).readMeta(id)));
    const firstPaid = metas.sort((a, b) => (a.submittedAt < b.submittedAt ? -1 : 1))[0]!;
    writeFileSync(join(paths.dataDir, 'store', 'files', firstPaid.contentHash, 'statements.jsonl'), '');

    const third = await submit();
    expect(await approve(third.batchId, 'approver')).toBe(
      'approved by approver (1 of 2): waiting for another approver',
    );
    const waiting = await third.handle.query(batchProgressQuery);
    expect(waiting.approval?.because).toMatch(
      new RegExp(
        `approver approved alone and the evidence of \\S+'s approvals is incomplete \\(batch ${firstPaid.batchId}'s record has no verified submit statement\\)`,
      ),
    );
    expect(paid(third.references)).toEqual([0]);
    expect(await approve(third.batchId, 'approver2')).toMatch(/\(2 of 2\): paying may start/);
    expect((await third.handle.result()).counts).toEqual({ succeeded: 1 });
    expect(paid(third.references)).toEqual([1]);
  });
});
