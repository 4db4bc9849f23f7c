import { TEST_CARDS } from '../../src/sandbox/test-values';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import {
  batchCsv,
  batchHandle,
  batchTestPaths,
  dropAndSubmit,
  ledgerPayouts,
  uniquePrefix,
} from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';

describe('the batch window', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('frees a row’s slot when its money settles, not when the optional credit confirmation comes', async () => {
    const paths = batchTestPaths();
    const p = uniquePrefix();
    const references = [`${p}-a`, `${p}-b`, `${p}-c`];
    // One in flight, and payouts that wait an hour for a confirmation_payout that never comes.
    const r = await dropAndSubmit(
      stack,
      paths,
      'credit.csv',
      batchCsv(references.map((reference) => ({ reference, card: TEST_CARDS.CONFIRMATION_PAYOUT_NEVER }))),
      {
        batchOptions: {
          maxInFlight: 1,
          payout: {
            pollAfterMs: 1_000,
            awaitCreditConfirmation: true,
            creditConfirmationWindowMs: 3_600_000,
          },
        },
      },
    );
    const result = await batchHandle(stack, r.batchId).result();
    expect(result.counts).toEqual({ succeeded: 3 });
    expect([...ledgerPayouts(stack, references).values()]).toEqual([1, 1, 1]);
    // The payouts themselves still wait for their credit confirmation.
    const first = stack.client.workflow.getHandle(payoutWorkflowId(references[0]!));
    expect((await first.describe()).status.name).toBe('RUNNING');
    expect((await first.query(payoutStatusQuery)).state).toBe('succeeded');
    for (const reference of references)
      await stack.client.workflow.getHandle(payoutWorkflowId(reference)).terminate('test done');
  });
});
