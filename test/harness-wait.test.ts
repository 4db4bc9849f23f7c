import { ServiceError } from '@temporalio/client';
import { waitFor } from './harness/wait';

/** What grpc-js raises for a call a loaded server did not answer in time, wrapped as the SDK's query wraps it. */
const deadlineExceeded = () =>
  new ServiceError('Failed to query Workflow', {
    cause: Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded after 10.001s'), { code: 4 }),
  });

describe('test/harness/wait.ts waitFor', () => {
  it('asks again after a transient DEADLINE_EXCEEDED instead of failing the wait', async () => {
    let calls = 0;
    await waitFor(async () => {
      calls++;
      if (calls === 1) throw deadlineExceeded();
      return true;
    }, 10_000);
    expect(calls).toBe(2);
  });

  it('ends at once on any other error', async () => {
    let calls = 0;
    await expect(
      waitFor(async () => {
        calls++;
        throw new Error('the worker exited 2');
      }, 10_000),
    ).rejects.toThrow('the worker exited 2');
    expect(calls).toBe(1);
  });

  it('fails at its own deadline naming the last transient error when the server never answers', async () => {
    await expect(
      waitFor(
        async () => {
          throw deadlineExceeded();
        },
        600,
        'the batch to answer',
      ),
    ).rejects.toThrow(
      /the batch to answer not met within 600 ms \(last transient error: Failed to query Workflow\)/,
    );
  });
});
