/**
 * Issue 24: a payout's or a batch's input with a key no schema defines is refused at the workflow
 * boundary, naming the key, instead of the key being dropped on its way to the bank. On the real
 * server: the run ends invalid_input at once and nothing reaches the bank.
 */
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import { failureType, payoutRequest, requestsTo } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';

describe('unknown keys at the workflow boundary', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  const failure = async (type: string, workflowId: string, input: unknown) => {
    const handle = await stack.client.workflow.start(type, {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [input] as never,
    });
    const err = await handle.result().catch((e: unknown) => e);
    expect(await failureType(handle)).toBe('invalid_input');
    return ((err as WorkflowFailedError).cause as Error).message;
  };

  it('a payout whose recipient carries an unknown field ends invalid_input naming it; no bank call', async () => {
    const before = await requestsTo(stack, '/session/');
    const request = payoutRequest();
    const message = await failure('payoutWorkflow', payoutWorkflowId(request.reference), {
      request: { ...request, recipient: { ...request.recipient, passportNumber: '4510 123456' } },
    });
    expect(message).toContain('request.recipient.passportNumber: expected no such field');
    expect(message).not.toContain('4510');
    expect(await requestsTo(stack, '/session/')).toBe(before);
  });

  it('a batch started with an unknown option ends invalid_input naming it', async () => {
    const batchId = `batch-${randomBytes(8).toString('hex')}`;
    const message = await failure('batchWorkflow', batchId, { batchId, options: { turbo: true } });
    expect(message).toContain('options.turbo: expected no such field');
  });
});
