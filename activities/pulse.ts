import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { throttledPulse, type Pulse } from '../src/pulse';

/**
 * The running activity's pulse (src/pulse.ts): its heartbeat, and its cancellation (a cancel, or the
 * server's answer to a heartbeat that this attempt timed out and another was started) thrown as the
 * SDK's CancelledFailure.
 */
export function activityPulse(everyMs?: number): Pulse {
  const context = Context.current();
  const signal = context.cancellationSignal;
  return throttledPulse(
    () => context.heartbeat(),
    () => (signal.aborted ? (signal.reason ?? new CancelledFailure('CANCELLED')) : undefined),
    everyMs,
  );
}
