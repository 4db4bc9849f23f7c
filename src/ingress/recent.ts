/** A map that keeps only its `capacity` most recently used keys; capacity 0 keeps nothing. */
class RecentMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.touch(key, value);
    return value;
  }

  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.touch(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Most recently used goes last, so the first key is the one to forget. */
  private touch(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
  }
}

/**
 * Ids of webhooks recently handed to Temporal, so a resent webhook costs no signal. Only an
 * optimisation: workflows dedupe by id themselves, and a restart forgets everything.
 */
export class RecentIds {
  private readonly ids: RecentMap<true>;

  constructor(capacity: number) {
    this.ids = new RecentMap(capacity);
  }

  has(id: string): boolean {
    return this.ids.get(id) !== undefined;
  }

  add(id: string): void {
    this.ids.set(id, true);
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
  private readonly owners: RecentMap<readonly string[]>;
  /** Sessions whose payout waits for no confirmation_payout, as a signed event's metadata said. */
  private readonly endingAtResult: RecentIds;

  constructor(capacity: number) {
    this.owners = new RecentMap(capacity);
    this.endingAtResult = new RecentIds(capacity);
  }

  /** Its payout waits for no confirmation_payout: one needs no signal (it would only race the payout's end). */
  endsAtResult(sessionId: string): boolean {
    return this.endingAtResult.has(sessionId);
  }

  rememberEndsAtResult(sessionId: string): void {
    this.endingAtResult.add(sessionId);
  }

  get(sessionId: string): readonly string[] {
    return this.owners.get(sessionId) ?? [];
  }

  remember(sessionId: string, workflowIds: readonly string[]): void {
    if (workflowIds.length === 0) return;
    this.owners.set(sessionId, [...new Set([...this.get(sessionId), ...workflowIds])]);
  }
}
