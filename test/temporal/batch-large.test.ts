import type { BatchPaths } from '../../src/batch/config';
import { readOutcomes } from '../../src/batch/store';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { batchProgressQuery } from '../../workflows/definitions';

// 1 000 rows in the suite (about 2–3 minutes on two cores); 10 000 rows are measured by bench/batch.ts
// (docs/performance.md). A low continue-as-new threshold makes it continue as new between its two chunks.
const ROWS = 1_000;

describe('a large batch', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it(
    `pays ${ROWS} rows, exactly one ledger payout per row, across continue-as-new`,
    async () => {
      const p = uniquePrefix();
      const references = Array.from({ length: ROWS }, (_, i) => `${p}-${String(i).padStart(5, '0')}`);
      const bytes = batchCsv(references.map((reference, i) => ({ reference, selfEmployed: i % 2 === 0 })));
      const r = await dropAndSubmit(stack, paths, 'large.csv', bytes, {
        batchOptions: { maxInFlight: 50, continueAsNewAfterEvents: 1_000, payout: { pollAfterMs: 10_000 } },
      });
      const handle = batchHandle(stack, r.batchId);
      const result = await handle.result();
      expect(result.counts).toEqual({ succeeded: ROWS });
      const paid = ledgerPayouts(stack, references);
      expect([...paid.values()].filter((n) => n !== 1)).toEqual([]);
      expect(readOutcomes(paths.dataDir, r.batchId).size).toBe(ROWS);
      // Two chunks of 500 rows and a low threshold: it continued as new at the chunk boundary.
      expect((await handle.query(batchProgressQuery)).runs).toBe(2);
    },
    10 * 60_000,
  );
});
