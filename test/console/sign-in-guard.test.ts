import { SignInGuard, type GuardOptions } from '../../src/console/sign-in-guard';

/** The per-login back-off and lock, with the clock passed in (src/console/sign-in-guard.ts). */
const OPTIONS: GuardOptions = {
  freeFailures: 5,
  lockAfter: 20,
  lockMs: 15 * 60_000,
  maxBackoffMs: 60_000,
  maxTracked: 100,
};

/** `n` attempts for `login`, each `gapMs` after the last, from `start`; the verdicts. */
function attempts(guard: SignInGuard, login: string, n: number, start: number, gapMs = 0) {
  return Array.from({ length: n }, (_, i) => guard.attempt(login, start + i * gapMs));
}

describe('sign-in guard', () => {
  it('lets five attempts through, then makes each wait 1 s, 2 s, 4 s … after the last', () => {
    const guard = new SignInGuard(OPTIONS);
    expect(attempts(guard, 'maria', 5, 0).every((v) => v.allowed)).toBe(true);
    // The 6th comes within the 1 s: refused, and counted, so the next must wait 2 s after it.
    expect(guard.attempt('maria', 999)).toEqual({ allowed: false, retryAt: 2999, locked: false });
    expect(guard.attempt('maria', 2998)).toEqual({ allowed: false, retryAt: 6998, locked: false }); // 7th
    expect(guard.attempt('maria', 6998)).toEqual({ allowed: true }); // the 8th waited out its 4 s
    expect(guard.attempt('maria', 6998 + 7999)).toMatchObject({ allowed: false }); // 8 s after the 8th
  });

  it('locks a login after twenty attempts from anywhere, for the lock period, and says until when', () => {
    const guard = new SignInGuard(OPTIONS);
    const verdicts = attempts(guard, 'maria', 30, 1_000, 100); // a burst from five addresses, say
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
    const lockedAt = 1_000 + 19 * 100; // the 20th attempt
    expect(verdicts[20]).toEqual({ allowed: false, retryAt: lockedAt + 15 * 60_000, locked: true });
    expect(guard.attempt('maria', lockedAt + 15 * 60_000 - 1)).toMatchObject({
      allowed: false,
      locked: true,
    });
    // Another login is untouched: a colleague signs in.
    expect(guard.attempt('ivan', 5_000)).toEqual({ allowed: true });
    expect(guard.held(5_000)).toEqual([
      { login: 'maria', failures: 31, retryAt: lockedAt + 15 * 60_000, locked: true },
    ]);
    // Over: a fresh count.
    expect(guard.attempt('maria', lockedAt + 15 * 60_000)).toEqual({ allowed: true });
  });

  it('forgets the count on success, on an admin’s unlock, and after the window', () => {
    const guard = new SignInGuard(OPTIONS);
    attempts(guard, 'maria', 25, 0);
    expect(guard.attempt('maria', 10).allowed).toBe(false);
    expect(guard.unlock('maria')).toBe(true);
    expect(guard.unlock('maria')).toBe(false);
    expect(attempts(guard, 'maria', 5, 20).every((v) => v.allowed)).toBe(true);
    guard.succeeded('maria');
    expect(attempts(guard, 'maria', 5, 30).every((v) => v.allowed)).toBe(true);
    expect(guard.attempt('maria', 40).allowed).toBe(false);
    expect(guard.attempt('maria', 40 + 15 * 60_000).allowed).toBe(true); // fifteen minutes since the first
    expect(guard.held(40 + 15 * 60_000)).toEqual([]);
  });

  it('counts unknown logins alike, and a flood of made-up names cannot free a locked login', () => {
    const guard = new SignInGuard(OPTIONS);
    attempts(guard, 'maria', 20, 0);
    for (let i = 0; i < 500; i++) guard.attempt(`nobody-${i}`, 1_000 + i);
    expect(guard.attempt('maria', 2_000)).toMatchObject({ allowed: false, locked: true });
    expect(attempts(guard, 'nobody-x', 20, 3_000).at(-1)!.allowed).toBe(false);
  });
});
