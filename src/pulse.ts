/**
 * What a long step calls as it goes (every row, every line): keeps the step's heartbeat alive and
 * stops the step, by throwing, once it is cancelled. An activity attempt whose heartbeat the server
 * gave up on learns so at its next heartbeat; from then on its next pulse throws, so it stops before a
 * later attempt publishes anything, instead of running on beside it (issue 38: nine attempts of one
 * report at once, each removing the others' scratch files).
 */
export type Pulse = () => void;

/** A pulse that does nothing: for callers outside an activity (a command line, a unit test). */
export const noPulse: Pulse = () => {};

/**
 * `beat` at most once every `everyMs` (a heartbeat per row would cost more CPU than the row), and
 * `cancelled()` checked on every call, since a cancellation must stop the step at once.
 */
export function throttledPulse(
  beat: () => void,
  cancelled: () => unknown,
  everyMs = 1000,
  now: () => number = Date.now,
): Pulse {
  let last = -Infinity;
  return () => {
    const reason = cancelled();
    if (reason) throw reason instanceof Error ? reason : new Error(`cancelled: ${String(reason)}`);
    const at = now();
    if (at - last >= everyMs) {
      last = at;
      beat();
    }
  };
}
