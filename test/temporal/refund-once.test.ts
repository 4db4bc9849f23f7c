import { randomUUID } from 'node:crypto';
import { refundStatusQuery, refundWorkflowId } from '../../workflows/refund/contract';
import { runCli } from '../harness/cli-process';
import { refundEntries, succeededPayment } from '../harness/payments';
import { failureType } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';

// Issue 23: a refund run as documented, again with the server's default id-reuse policy and again under
// another workflow id made three refunds of one session. Now: one refund per reference, ever.
describe('a refund is made at most once per reference, whoever starts it and however often', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  const start = (reference: string, args: unknown, workflowId = refundWorkflowId(reference)) =>
    stack.client.workflow.start('refundWorkflow', { taskQueue: stack.taskQueue, workflowId, args: [args] });

  it('three attempts (documented id, default id reuse, another workflow id) make one refund', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const reference = `rf-${randomUUID()}`;
    const input = { reference, sessionId, amount: 20_000, pollAfterMs: 1_000 };

    const first = await start(reference, input);
    expect(await first.result()).toMatchObject({
      state: 'refunded',
      refundId: expect.stringMatching(/^rf_/),
    });
    // The default id-reuse policy lets a second run start under the same id once the first has closed.
    expect(await failureType(await start(reference, input))).toBe('refund_already_done');
    expect(await failureType(await start(reference, input, `other-${reference}`))).toBe('invalid_input');

    expect(refundEntries(stack, sessionId)).toHaveLength(1);
    expect(refundEntries(stack, sessionId)[0]!.amount).toBe(20_000);
  });

  it('the same reference for another amount is a conflict, not a second refund', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const reference = `rf-${randomUUID()}`;
    await (await start(reference, { reference, sessionId, amount: 10_000, pollAfterMs: 1_000 })).result();
    const other = await start(reference, { reference, sessionId, amount: 5_000, pollAfterMs: 1_000 });
    expect(await failureType(other)).toBe('refund_reference_conflict');
    expect(refundEntries(stack, sessionId)).toHaveLength(1);
  });

  it('a run terminated after it asked the bank is followed by the next run, not repeated', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const timings = stack.sandbox.sandbox.timings;
    const refundMs = timings.refundMs;
    timings.refundMs = 3_600_000; // the bank takes an hour to accept it
    try {
      const reference = `rf-${randomUUID()}`;
      const input = { reference, sessionId, amount: 15_000, pollAfterMs: 3_600_000 };
      const first = await start(reference, input);
      await waitFor(
        async () => (await first.query(refundStatusQuery)).state === 'awaiting_refund',
        60_000,
        'refund requested',
      );
      const { refundId } = await first.query(refundStatusQuery);
      await first.terminate('operator pulled the plug');

      const second = await start(reference, input);
      await waitFor(
        async () => (await second.query(refundStatusQuery)).state === 'awaiting_refund',
        60_000,
        'second run waiting',
      );
      expect((await second.query(refundStatusQuery)).refundId).toBe(refundId);
      await stack.sandbox.advance(3_600_000);
      expect(await second.result()).toMatchObject({ state: 'refunded', refundId });
      expect(refundEntries(stack, sessionId)).toHaveLength(1);
    } finally {
      timings.refundMs = refundMs;
    }
  });

  it.each([
    ['null', null, /^input: expected an object/],
    ['{}', {}, /reference: .*missing.*sessionId: .*missing/],
    [
      'an amount as text',
      { reference: 'x', sessionId: 's', amount: '200' },
      /^amount: expected a positive whole number of kopecks/,
    ],
  ])('started with %s it fails invalid_input naming the field, at once', async (_, bad, message) => {
    const reference = `rf-${randomUUID()}`;
    const handle = await start(reference, bad);
    expect(await failureType(handle)).toBe('invalid_input');
    await expect(handle.result()).rejects.toMatchObject({
      cause: { message: expect.stringMatching(message) },
    });
  });

  it('payrun refund create twice, then status: one refund', async () => {
    const sessionId = await succeededPayment(stack.bank, 50_000);
    const reference = `rf-cli-${randomUUID().slice(0, 8)}`;
    const args = ['refund', 'create', '--reference', reference, '--session', sessionId, '--amount', '200,00'];
    const first = await runCli([...args, '--wait'], stack.workerEnv);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(new RegExp(`${reference}: refunded .*200,00 ₽`));
    const again = await runCli([...args, '--wait'], stack.workerEnv);
    expect(again.stdout).toMatch(/an earlier run refunded it/);
    const status = await runCli(['refund', 'status', reference], stack.workerEnv);
    expect(status.stdout).toMatch(/refunded/);
    expect(refundEntries(stack, sessionId)).toHaveLength(1);
    expect(refundEntries(stack, sessionId)[0]!.amount).toBe(20_000);

    const bad = await runCli(
      ['refund', 'create', '--reference', reference, '--session', sessionId, '--amount', '2,0,0'],
      stack.workerEnv,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--amount/);
  });
});
