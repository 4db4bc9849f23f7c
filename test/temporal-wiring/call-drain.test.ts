import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { CallDrain, closeAfterCalls } from '../../src/temporal/call-drain';
import { waitFor } from '../harness/wait';

/** A gRPC endpoint that answers every call UNAVAILABLE, which the SDK retries after a back-off. */
async function unavailableServer(): Promise<{ server: Http2Server; address: string; calls: () => number }> {
  let calls = 0;
  const server = createServer();
  server.on('stream', (stream) => {
    calls++;
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'down' },
      { endStream: true },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, address: `127.0.0.1:${port}`, calls: () => calls };
}

describe('closing a Temporal connection with a call waiting out a retry', () => {
  it('waits for the call to end instead of letting its retry hit a closed channel', async () => {
    const drain = new CallDrain();
    const retry = makeGrpcRetryInterceptor(
      defaultGrpcRetryOptions({ maxAttempts: 3, initialIntervalMs: () => 1_000 }),
    );
    const endpoint = await unavailableServer();
    const connection = Connection.lazy({
      address: endpoint.address,
      interceptors: [drain.interceptor, retry],
    });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const call = connection.workflowService.getSystemInfo({}).then(
        () => 'answered',
        (err: Error) => err.message,
      );
      expect(drain.pending).toBe(1);
      // The first attempt has failed: the call now waits out its back-off, when closing used to break it.
      await waitFor(async () => endpoint.calls() >= 1, 30_000, 'the first attempt reached the server');
      const settled = await closeAfterCalls(connection, drain, 60_000);
      expect(settled).toBe(true);
      expect(drain.pending).toBe(0);
      const answer = await call;
      expect(answer).toMatch(/UNAVAILABLE/);
      expect(endpoint.calls()).toBe(3);
      expect(answer).not.toMatch(/Channel has been shut down/);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      endpoint.server.close();
    }
  });

  it('closes at once when nothing is in flight, and gives up waiting after its bound', async () => {
    const idle = new CallDrain();
    await expect(idle.settled(1)).resolves.toBe(true);

    const stuck = new CallDrain();
    // A call that never ends: the interceptor's start without a status.
    const never = stuck.interceptor(
      {} as never,
      () =>
        ({
          start: () => undefined,
        }) as never,
    );
    never.start({} as never, {} as never);
    expect(stuck.pending).toBe(1);
    await expect(stuck.settled(50)).resolves.toBe(false);
  });
});
