/**
 * Ids of webhooks recently handed to Temporal, so a resent webhook costs no signal. Only an
 * optimisation: workflows dedupe by id themselves, and a restart forgets everything.
 */
export class RecentIds {
  private readonly ids = new Map<string, true>();

  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    if (!this.ids.has(id)) return false;
    this.ids.delete(id); // refresh: most recently seen goes last
    this.ids.set(id, true);
    return true;
  }

  add(id: string): void {
    if (this.capacity <= 0) return;
    this.ids.delete(id);
    this.ids.set(id, true);
    while (this.ids.size > this.capacity) this.ids.delete(this.ids.keys().next().value!);
  }

  get size(): number {
    return this.ids.size;
  }
}

/**
 * The workflows each recent bank session's events were delivered to, learned only from webhooks whose
 * signature checked out. A confirmation_payout carries nothing but a session id; remembering its
 * payout spares two visibility queries per paid row. A hint only: a miss (an old session, a restart)
 * falls back to the visibility look-up; a remembered workflow that refuses the signal has closed (it existed).
 */
export class SessionOwners {
  private readonly owners = new Map<string, readonly string[]>();

  constructor(private readonly capacity: number) {}

  get(sessionId: string): readonly string[] {
    return this.owners.get(sessionId) ?? [];
  }

  remember(sessionId: string, workflowIds: readonly string[]): void {
    if (this.capacity <= 0 || workflowIds.length === 0) return;
    const known = this.owners.get(sessionId) ?? [];
    this.owners.delete(sessionId); // most recently seen goes last
    this.owners.set(sessionId, [...new Set([...known, ...workflowIds])]);
    while (this.owners.size > this.capacity) this.owners.delete(this.owners.keys().next().value!);
  }
}
