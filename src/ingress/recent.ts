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
