import type { BatchPaths } from '../../src/batch/services/config';
import { batchStoreFor } from '../../src/batch/store/open';
import { readOutcomes } from '../../src/batch/store/reads';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  readReport,
  uniquePrefix,
} from '../harness/batches';
import { reportPathOf } from '../harness/reports';
import { startStack, type Stack } from '../harness/stack';
import { batchProgressQuery, pauseBatchUpdate, resumeBatchUpdate } from '../../workflows/batch/contract';
import { batchDecision } from '../harness/approvals';
import { sendBatchDecision } from '../../src/batch/commands/decide';
import { workTimeout } from '../harness/budget';

// 1 000 rows in `make test` (about 2 minutes on two cores); `make test-large` runs the same test with
// 10 000 rows (about 6 minutes). A low continue-as-new threshold makes it continue as new at every
// chunk boundary (500 rows a chunk).
const ROWS = Number(process.env.PAYRUN_LARGE_BATCH_ROWS ?? 1_000);
const CHUNK_ROWS = 500;

describe('a large batch', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    // The policy's defaults: the file waits for approval, two approvers above 1 000 000,00 ₽. Every row pays
    // the sandbox's one test person, whose yearly cap is lifted for 10 000 rows (15 000 000,00 ₽).
    stack = await startStack({ policy: { self_employed_yearly_cap: '100 000 000,00' } });
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
      const approve = async (person: string) =>
        sendBatchDecision(
          stack.client,
          r.batchId,
          await batchDecision(stack, paths.dataDir, r.batchId, person),
        );
      expect(await approve('approver')).toMatch(/\(1 of 2\): waiting for another approver/);
      expect(await approve('approver2')).toMatch(/\(2 of 2\): paying may start/);
      await handle.executeUpdate(pauseBatchUpdate, { args: [{ by: 'oncall', note: 'checking a row' }] });
      await handle.executeUpdate(resumeBatchUpdate, { args: [{ by: 'oncall' }] });
      const result = await handle.result();
      expect(result.counts).toEqual({ succeeded: ROWS });
      const paid = ledgerPayouts(stack, references);
      expect([...paid.values()].filter((n) => n !== 1)).toEqual([]);
      expect((await readOutcomes(batchStoreFor(paths.dataDir), r.batchId)).size).toBe(ROWS);
      // The report has every row, paid (with a shared store: as the watcher's host gets it from the store).
      const report = readReport(await reportPathOf(paths, r.batchId, result), false);
      expect(report.map((row) => row.reference)).toEqual(references);
      expect(report.filter((row) => row.state !== 'succeeded')).toEqual([]);
      // A low threshold: it continued as new at each chunk boundary.
      const progress = await handle.query(batchProgressQuery);
      expect(progress.runs).toBe(Math.ceil(ROWS / CHUNK_ROWS));
      // Who allowed it and who held it survive every continue-as-new.
      expect(progress.approval).toMatchObject({ required: true, by: 'approver, approver2' });
      expect(progress.commands?.map((c) => `${c.command} ${c.by}`)).toEqual([
        'approve approver',
        'approve approver2',
        'pause oncall',
        'resume oncall',
      ]);
    },
    // Quiet: about 35 ms a row at 10 000 rows, 100 s for 1 000 with the start-up (docs/performance-history.md).
    workTimeout({ units: ROWS, perUnitMs: 150, floorMs: 600_000 }),
  );
});
