import { CancelledFailure } from '@temporalio/common';
import { throttledPulse } from '../src/pulse';

describe('a pulse', () => {
  it('beats at most once per interval however often it is called', () => {
    let now = 0;
    let beats = 0;
    const pulse = throttledPulse(
      () => beats++,
      () => undefined,
      1000,
      () => now,
    );
    for (now = 0; now < 5000; now += 10) pulse();
    expect(beats).toBe(5);
  });

  it('throws the cancellation at the first call after it, before beating again', () => {
    let cancelled: unknown = undefined;
    let beats = 0;
    const pulse = throttledPulse(
      () => beats++,
      () => cancelled,
      0,
    );
    pulse();
    cancelled = new CancelledFailure('TIMED_OUT');
    expect(() => pulse()).toThrow(CancelledFailure);
    expect(() => pulse()).toThrow('TIMED_OUT');
    expect(beats).toBe(1);
  });
});
