import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPaths } from '../../src/batch/services/config';
import { dryRunBatch } from '../../src/batch/commands/dry-run';
import { submitBatch } from '../../src/batch/commands/submit';
import { verdictFromTaxpayerWorkflow } from '../../src/batch/commands/verdicts';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  freshInn,
  submitOptions,
  uniquePrefix,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';

/** npd/check calls the sandbox has answered (every tax number's). */
async function npdChecks(stack: Stack): Promise<number> {
  const res = await fetch(`${stack.sandbox.url}/__admin/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([k]) => k.endsWith('/npd/check'))
    .reduce((s, [, n]) => s + n, 0);
}

describe('a submit right after a dry run', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('pays with the verdicts the dry run fetched: no second taxpayer check of the same tax number', async () => {
    const p = uniquePrefix();
    const inn = freshInn(2525);
    const file = join(paths.batchesDir, 'inbox', 'after-dry-run.csv');
    writeFileSync(
      file,
      batchCsv([
        { reference: `${p}-1`, amount: '100.00', inn },
        { reference: `${p}-2`, amount: '50.00', inn },
      ]),
    );
    const before = await npdChecks(stack);
    const dry = await dryRunBatch(stack.bank, file, {
      paths,
      checkTaxpayer: (ask) => verdictFromTaxpayerWorkflow(stack.client, stack.taskQueue, ask),
    });
    expect(dry.rows.map((r) => r.pay)).toEqual([true, true]);
    expect(await npdChecks(stack)).toBe(before + 1);

    const r = await submitBatch(stack.client, file, submitOptions(stack, paths));
    expect(r.status).toBe('started');
    const result = await batchHandle(stack, r.batchId).result();
    expect(result.counts).toEqual({ succeeded: 2 });
    expect(await npdChecks(stack)).toBe(before + 1);
  });
});
