/**
 * Failed sign-ins counted per login, whatever address they come from (the per-address limit of
 * @fastify/rate-limit stays beside it): an attacker behind the office's one address cannot lock the whole
 * office by guessing one person's password, and one who spreads a guess over many addresses still meets
 * that person's back-off and lock. Pure, with the clock passed in; the console keeps one in memory (a
 * restart forgets it, as it forgets sessions).
 *
 * Every attempt counts when it arrives (before its password is checked, so a burst of parallel guesses
 * counts whole); a success forgets the count. After `freeFailures` attempts each one must wait 1 s, 2 s,
 * 4 s … (at most `maxBackoffMs`) after the last; one inside the wait is refused without the password being
 * checked, and counts too. At `lockAfter` attempts within `lockMs` of the first, the login is locked for
 * `lockMs`; an admin's unlock lifts it. Unknown logins are counted like real ones, so a lock does not tell
 * which logins exist.
 */
export interface GuardOptions {
  freeFailures: number;
  lockAfter: number;
  lockMs: number;
  maxBackoffMs: number;
  /** Logins remembered at most (each is a few numbers); the oldest unlocked ones go first. */
  maxTracked: number;
}

export const DEFAULT_GUARD: GuardOptions = {
  freeFailures: 5,
  lockAfter: 20,
  lockMs: 15 * 60_000,
  maxBackoffMs: 60_000,
  maxTracked: 10_000,
};

interface Attempts {
  /** Failed or refused attempts since the first one counted. */
  count: number;
  firstAt: number;
  lastAt: number;
  lockedUntil?: number;
}

export type Verdict =
  | { allowed: true }
  /** Refused before the password is checked: when to try again, and whether it is the lock. */
  | { allowed: false; retryAt: number; locked: boolean };

export interface HeldLogin {
  login: string;
  failures: number;
  retryAt: number;
  locked: boolean;
}

export class SignInGuard {
  private readonly attempts = new Map<string, Attempts>();

  constructor(private readonly opts: GuardOptions = DEFAULT_GUARD) {}

  /** An attempt to sign in as this login arrives: counted, and may its password be checked now? */
  attempt(login: string, now: number): Verdict {
    const earlier = this.current(login, now);
    const allowed = !earlier || this.retryAt(earlier) <= now;
    const a = earlier ?? { count: 0, firstAt: now, lastAt: now };
    this.count(login, a, now);
    return allowed ? { allowed } : { allowed, retryAt: this.retryAt(a), locked: a.lockedUntil !== undefined };
  }

  /** The password and code were right: the count is forgotten. */
  succeeded(login: string): void {
    this.attempts.delete(login);
  }

  /** An admin's unlock: the login starts afresh. True when there was something to forget. */
  unlock(login: string): boolean {
    return this.attempts.delete(login);
  }

  /** Logins that must wait now (locked or backing off), for the admin's page. */
  held(now: number): HeldLogin[] {
    const out: HeldLogin[] = [];
    for (const login of [...this.attempts.keys()]) {
      const a = this.current(login, now);
      if (!a) continue;
      const retryAt = this.retryAt(a);
      if (retryAt > now) out.push({ login, failures: a.count, retryAt, locked: a.lockedUntil !== undefined });
    }
    return out.sort((x, y) => y.retryAt - x.retryAt);
  }

  /** The login's attempts, unless they are old enough to forget (a lock over, a window passed). */
  private current(login: string, now: number): Attempts | undefined {
    const a = this.attempts.get(login);
    if (!a) return undefined;
    const over = a.lockedUntil !== undefined ? a.lockedUntil <= now : now - a.firstAt >= this.opts.lockMs;
    if (!over) return a;
    this.attempts.delete(login);
    return undefined;
  }

  private count(login: string, a: Attempts, now: number) {
    a.count++;
    a.lastAt = now;
    if (a.lockedUntil === undefined && a.count >= this.opts.lockAfter) a.lockedUntil = now + this.opts.lockMs;
    // Re-inserted: the map's order is the order of last attempts, which eviction reads.
    this.attempts.delete(login);
    this.attempts.set(login, a);
    if (this.attempts.size > this.opts.maxTracked) this.evict(now);
  }

  private retryAt(a: Attempts): number {
    if (a.lockedUntil !== undefined) return a.lockedUntil;
    const over = a.count - this.opts.freeFailures;
    if (over < 0) return a.lastAt;
    return a.lastAt + Math.min(this.opts.maxBackoffMs, 1000 * 2 ** Math.min(over, 30));
  }

  /** Forgets the oldest logins that are not locked (a flood of made-up names cannot free a locked one). */
  private evict(now: number) {
    for (const [login, a] of this.attempts) {
      if (this.attempts.size <= this.opts.maxTracked) return;
      if (a.lockedUntil === undefined || a.lockedUntil <= now) this.attempts.delete(login);
    }
    // Every one locked: the oldest lock goes rather than memory growing without end.
    for (const login of this.attempts.keys()) {
      if (this.attempts.size <= this.opts.maxTracked) return;
      this.attempts.delete(login);
    }
  }
}
