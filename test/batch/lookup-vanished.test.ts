import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { lookupPayout } from '../../src/batch/services/lookup';

// Retention (or an operator) can delete a closed history between the look-up's describe and the reads
// after it. The stand-in is Temporal's client, not ours: it answers describe, then the run is gone.
function clientWhoseRunVanishes(closeStatus: string, historyError: unknown): Client {
  const gone = new WorkflowNotFoundError('workflow not found', 'payout-r1', undefined);
  const handle = {
    describe: async () => ({
      workflowId: 'payout-r1',
      runId: 'run-1',
      status: { name: closeStatus },
      typedSearchAttributes: { get: () => undefined },
    }),
    result: async () => {
      throw gone;
    },
    query: async () => {
      throw gone;
    },
  };
  return {
    options: { namespace: 'default' },
    workflow: { getHandle: () => handle },
    workflowService: {
      getWorkflowExecutionHistory: async () => {
        throw historyError;
      },
    },
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
  } as unknown as Client;
}

describe('lookupPayout when the run vanishes mid-look-up', () => {
  it('a completed run whose result is gone is no run at all', async () => {
    await expect(lookupPayout(clientWhoseRunVanishes('COMPLETED', null), 'payout-r1')).resolves.toEqual({
      kind: 'none',
    });
  });
  it('a terminated run whose history is gone (gRPC NOT_FOUND) is no run at all', async () => {
    const notFound = Object.assign(new Error('workflow execution not found'), { code: 5 });
    await expect(lookupPayout(clientWhoseRunVanishes('TERMINATED', notFound), 'payout-r1')).resolves.toEqual({
      kind: 'none',
    });
  });
  it('any other failure to read the history is not taken for absence', async () => {
    const unavailable = Object.assign(new Error('connection refused'), { code: 14 });
    await expect(
      lookupPayout(clientWhoseRunVanishes('TERMINATED', unavailable), 'payout-r1'),
    ).rejects.toThrow('connection refused');
  });
});
