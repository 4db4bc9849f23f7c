/**
 * Signed-in people, in memory: a session is a random id (the cookie's value) with the person, an expiry and
 * a fingerprint of the sign-in secrets it was opened with (the policy's password hash and TOTP secret, and the
 * passkey it was opened with, if one): when an admin changes them or removes that passkey, the console drops
 * the session at its next request (ConsoleContext.credentialOf).
 * A restart signs everyone out, which is the safe direction; the console keeps no state on disk.
 */
import { randomBytes } from 'node:crypto';

export interface Session {
  id: string;
  person: string;
  /** ConsoleContext.credentialOf(person, passkey) at sign-in. */
  credential: string;
  /** The passkey's credential id, for a session a passkey opened. */
  passkey?: string;
  expiresAt: number;
  /** One message for the next page (what the last form did). */
  flash?: { kind: 'ok' | 'error'; text: string };
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly ttlMs: number) {}

  create(person: string, credential: string, now = Date.now(), passkey?: string): Session {
    this.sweep(now);
    const id = randomBytes(32).toString('base64url');
    const session: Session = {
      id,
      person,
      credential,
      expiresAt: now + this.ttlMs,
      ...(passkey ? { passkey } : {}),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string | undefined, now = Date.now()): Session | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= now) {
      this.sessions.delete(id);
      return undefined;
    }
    return s;
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  private sweep(now: number) {
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
  }
}
