import { ServiceError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { isEngineUnavailable, untilEngineAnswers } from '../../src/cli/engine-wait';

/** A gRPC error as @grpc/grpc-js produces it (code, details, metadata). */
const grpc = (code: number, details = 'No connection established') =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

describe('isEngineUnavailable', () => {
  it('is true for a server that is down, restarting or shedding load, also wrapped by the client', () => {
    for (const code of [14, 4, 10, 8])
      expect({ code, t: isEngineUnavailable(grpc(code)) }).toEqual({ code, t: true });
    // What `handle.result()` threw in issue 29's outage.
    const wrapped = new ServiceError('Failed to get Workflow execution history', { cause: grpc(14) });
    expect(isEngineUnavailable(wrapped)).toBe(true);
  });

  it('is false for an answer: a failed or unknown workflow, a refused call, a plain error', () => {
    expect(isEngineUnavailable(new WorkflowNotFoundError('no such batch', 'batch-x', undefined))).toBe(false);
    expect(isEngineUnavailable(new WorkflowFailedError('failed', undefined, 'NON_RETRYABLE_FAILURE'))).toBe(
      false,
    );
    expect(isEngineUnavailable(grpc(7, 'PermissionDenied'))).toBe(false);
    expect(isEngineUnavailable(grpc(5, 'NotFound'))).toBe(false);
    expect(isEngineUnavailable(new Error('boom'))).toBe(false);
    expect(isEngineUnavailable(undefined)).toBe(false);
  });
});

describe('untilEngineAnswers', () => {
  const notices = () => {
    const said: string[] = [];
    return {
      said,
      notices: { waiting: (ms: number) => said.push(`waiting ${ms}`), back: () => said.push('back') },
    };
  };

  it('asks again after each unavailable answer, doubling the pause up to its cap, and says when it is back', async () => {
    const { said, notices: n } = notices();
    let calls = 0;
    const answer = await untilEngineAnswers(
      async () => {
        calls++;
        if (calls <= 4)
          throw new ServiceError('Failed to get Workflow execution history', { cause: grpc(14) });
        return 'done';
      },
      { notices: n, initialDelayMs: 1, maxDelayMs: 4 },
    );
    expect(answer).toBe('done');
    expect(said).toEqual(['waiting 1', 'waiting 2', 'waiting 4', 'waiting 4', 'back']);
  });

  it('throws any other error at once, without waiting', async () => {
    const { said, notices: n } = notices();
    const failed = new WorkflowFailedError('batch failed', undefined, 'NON_RETRYABLE_FAILURE');
    await expect(untilEngineAnswers(async () => Promise.reject(failed), { notices: n })).rejects.toBe(failed);
    expect(said).toEqual([]);
  });

  it('says nothing when the first answer comes', async () => {
    const { said, notices: n } = notices();
    expect(await untilEngineAnswers(async () => 42, { notices: n })).toBe(42);
    expect(said).toEqual([]);
  });
});
