/**
 * The sandbox clock: real time plus an offset that only grows (time travel forward via
 * POST /__admin/clock/advance), and a scheduler of due events driven by it. Events are plain data
 * ({at, kind, payload}) so they persist with the rest of the state; handlers are registered by kind.
 */
export interface ScheduledEvent {
  id: number;
  at: number;
  kind: string;
  payload: Record<string, unknown>;
}

export type EventHandler = (ev: ScheduledEvent) => void | Promise<void>;

export interface ClockStore {
  clockOffsetMs: number;
  events: ScheduledEvent[];
  nextEventId: number;
}

export class SandboxClock {
  private handlers = new Map<string, EventHandler>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private store: () => ClockStore,
    private onError: (err: unknown, ev: ScheduledEvent) => void,
    private onChange: () => void = () => {},
  ) {}

  now(): number {
    return Date.now() + this.store().clockOffsetMs;
  }

  on(kind: string, handler: EventHandler): void {
    this.handlers.set(kind, handler);
  }

  schedule(delayMs: number, kind: string, payload: Record<string, unknown> = {}): ScheduledEvent {
    return this.scheduleAt(this.now() + Math.max(0, delayMs), kind, payload);
  }

  scheduleAt(at: number, kind: string, payload: Record<string, unknown> = {}): ScheduledEvent {
    const s = this.store();
    const ev: ScheduledEvent = { id: s.nextEventId++, at, kind, payload };
    // Keep sorted by (at, id): equal times fire in scheduling order.
    let i = s.events.length;
    while (i > 0 && s.events[i - 1]!.at > at) i--;
    s.events.splice(i, 0, ev);
    this.onChange();
    this.arm();
    return ev;
  }

  pending(): ScheduledEvent[] {
    return [...this.store().events];
  }

  /** Moves the clock forward by ms (or to an instant) and fires, in order, every event that became due. */
  async advance(target: { ms?: number; to?: number }): Promise<number> {
    await this.serial(async () => {
      await Promise.allSettled([...this.inflight]);
      const goal = target.to ?? this.now() + (target.ms ?? 0);
      for (;;) {
        const s = this.store();
        const next = s.events[0];
        // Real time moves on while handlers run: whatever is due by then fires in this advance too.
        if (!next || next.at > Math.max(goal, this.now())) break;
        if (next.at > this.now()) s.clockOffsetMs = next.at - Date.now();
        s.events.shift();
        await this.fire(next, true);
      }
      const s = this.store();
      if (goal > this.now()) s.clockOffsetMs = goal - Date.now();
      this.onChange();
    });
    this.arm();
    return this.now();
  }

  /** Re-arms the real-time timer for the earliest event (call after loading state). */
  arm(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.store().events[0];
    if (!next) return;
    const delay = Math.min(Math.max(0, next.at - this.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running.catch(() => {});
    await Promise.allSettled([...this.inflight]);
  }

  private async tick(): Promise<void> {
    await this.serial(async () => {
      for (;;) {
        const s = this.store();
        const next = s.events[0];
        if (!next || next.at > this.now() || this.closed) break;
        s.events.shift();
        // In real time, slow work (a webhook POST) must not hold back other due events.
        await this.fire(next, false);
      }
      this.onChange();
    });
    this.arm();
  }

  private async fire(ev: ScheduledEvent, wait: boolean): Promise<void> {
    const handler = this.handlers.get(ev.kind);
    if (!handler) return;
    let p: Promise<void>;
    try {
      p = Promise.resolve(handler(ev)).catch((err) => this.onError(err, ev));
    } catch (err) {
      this.onError(err, ev);
      return;
    }
    if (wait) {
      await p;
    } else {
      this.inflight.add(p);
      void p.finally(() => this.inflight.delete(p));
    }
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.running.then(fn, fn);
    this.running = run.catch(() => {});
    return run;
  }
}

/** Adds business days (Mon–Fri) to an instant, keeping the time of day (UTC). */
export function addBusinessDays(ms: number, days: number): number {
  const d = new Date(ms);
  let left = days;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return d.getTime();
}
