import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';

/**
 * Counts a connection's calls from start to final status, retries included (it sits outside the SDK's
 * retry interceptor). Closing a connection while a call waits out a retry back-off makes that retry
 * throw "Channel has been shut down" from a timer, an uncaught error in whichever process closed it
 * (a CLI, the ingress, a test): close waits for such calls first.
 */
export class CallDrain {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  readonly interceptor: Interceptor = (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start: (metadata, _listener, next) => {
        this.inFlight++;
        let ended = false;
        // A partial listener: grpc-js hands each status on through `nextStatus`.
        next(metadata, {
          onReceiveStatus: (status, nextStatus) => {
            if (!ended) {
              ended = true;
              this.ended();
            }
            nextStatus(status);
          },
        });
      },
    });

  get pending(): number {
    return this.inFlight;
  }

  /** Resolves true once no call is in flight, false when `ms` pass first (the caller closes anyway). */
  settled(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  private ended(): void {
    this.inFlight--;
    if (this.inFlight > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Longest a close waits for calls in flight: the SDK's default retries back off for about 20 s. */
export const CLOSE_DRAIN_MS = 20_000;

/** Closes once no call is in flight (or `ms` passed); false when calls were still in flight. */
export async function closeAfterCalls(
  connection: { close(): Promise<void> },
  drain: CallDrain,
  ms = CLOSE_DRAIN_MS,
): Promise<boolean> {
  const settled = await drain.settled(ms);
  await connection.close();
  return settled;
}
