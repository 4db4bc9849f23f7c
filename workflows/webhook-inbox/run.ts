import { ActivityFailure, condition, log, patched, workflowInfo } from '@temporalio/workflow';
import type { NominalTopupEvent } from '../../src/bank/types/webhooks';
import { parseBankEvent, type BankEventSignal } from '../shared/bank-event-contract';
import { rerouteActivity } from './activities';
import {
  inboxTopupSchema,
  parseOrphanDismissal,
  type InboxView,
  type WebhookInboxInput,
  type WebhookInboxOptions,
  type WebhookInboxState,
} from './contract';

const DEFAULTS: Required<WebhookInboxOptions> = {
  rerouteWindowMs: 15 * 60_000,
  rerouteInitialIntervalMs: 2_000,
  rerouteMaxIntervalMs: 60_000,
  routedKept: 50,
  continueAsNewAfterEvents: 2_000,
};
/** Bounds on what the inbox carries over continue-as-new (payload size stays far below 2 MB). */
const SEEN_IDS_KEPT = 5_000;
const TOPUPS_KEPT = 1_000;
const UNKNOWN_KEPT = 200;
const LATE_KEPT = 1_000;
/**
 * Orphans carry the bank's session document (a few KB each); past this many the oldest are dropped,
 * counted and logged with their ids, so continue-as-new's input stays far below Temporal's 2 MB.
 */
const ORPHANS_KEPT = 300;
/** An unknown event's body is kept whole up to this size (JSON characters); above it only its size is. */
const UNKNOWN_BODY_MAX = 16 * 1024;
/** Temporal refuses more than 2 000 pending activities in one workflow; reroutes stay far below. */
export const MAX_CONCURRENT_REROUTES = 200;

export function emptyInboxState(): WebhookInboxState {
  return {
    pending: [],
    routedCount: 0,
    routed: [],
    orphaned: [],
    topups: [],
    unknown: [],
    dismissedCount: 0,
    seenIds: [],
  };
}

/**
 * A signal that arrives with the start (a loaded worker takes its first task late) was accepted before
 * run() restarted the carried reroutes, and was rerouted twice: two activities, two orphans of one event.
 */
const ONE_REROUTE_PER_EVENT = 'inbox-one-reroute-per-event';

const keepLast = <T>(list: T[], max: number) => list.splice(0, Math.max(0, list.length - max));
const now = () => new Date().getTime(); // workflow time: deterministic on replay

/**
 * One run of the inbox. Its whole state is `state` (WebhookInboxState), handed whole to continue-as-new;
 * `seen` is an index of `state.seenIds` and `reroutesRunning` counts this run's activities, both rebuilt.
 */
export class WebhookInboxRun {
  readonly state: WebhookInboxState;
  private readonly options: Required<WebhookInboxOptions>;
  private readonly seen: Set<string>;
  private reroutesRunning = 0;
  /** What the previous run left pending, before any signal of this run is accepted. */
  private readonly carriedPending: WebhookInboxState['pending'];
  private onePerEvent = false;

  constructor(private readonly input: WebhookInboxInput) {
    this.options = { ...DEFAULTS, ...input.options };
    this.state = input.state ?? emptyInboxState();
    this.seen = new Set(this.state.seenIds);
    this.carriedPending = [...this.state.pending];
  }

  /** What the next run starts from: the options it was given and the whole state. */
  carry(): WebhookInboxInput {
    return { options: this.input.options, state: this.state };
  }

  /** Reroutes that were running when the previous run continued as new resume with what is left of their window. */
  async run(): Promise<WebhookInboxInput> {
    this.onePerEvent = patched(ONE_REROUTE_PER_EVENT);
    for (const p of this.onePerEvent ? this.carriedPending : this.state.pending)
      void this.reroute(p.event, p.since);
    await condition(
      () =>
        workflowInfo().continueAsNewSuggested ||
        workflowInfo().historyLength >= this.options.continueAsNewAfterEvents,
    );
    // Reroutes still in flight are carried as pending and restarted; a second delivery is harmless (ids dedupe).
    return this.carry();
  }

  // Anyone who can reach Temporal can signal the inbox: malformed input is counted and logged, never thrown on.
  accept(raw: unknown): void {
    const parsed = parseBankEvent(raw);
    if (!parsed.ok) return this.ignore('bankEvent', parsed.message);
    const evt = parsed.value;
    const { state } = this;
    if (this.seen.has(evt.id)) return; // the bank resent it, or two routes delivered it
    // A top-up is checked here, not only at continue-as-new: one signalled top-up of the wrong shape
    // would fail the next run's input check and lose the pending reroutes and orphans with it. Refused
    // before its id is remembered, so a malformed copy cannot shadow the bank's real event.
    const topup = evt.type === 'nominal_topup' ? inboxTopupSchema().safeParse(topupOf(evt)) : undefined;
    if (topup && !topup.success) return this.ignore('bankEvent', 'nominal_topup: the body is not a top-up');
    this.remember(evt.id);
    if (topup?.success) {
      state.topups.push(topup.data);
      keepLast(state.topups, TOPUPS_KEPT);
    } else if (evt.lateFor && evt.lateFor.length > 0) {
      state.late ??= [];
      state.late.push({
        ...summary(evt),
        owners: evt.lateFor,
        ...(evt.confirmation ? { confirmation: evt.confirmation } : {}),
      });
      state.lateCount = (state.lateCount ?? 0) + 1;
      keepLast(state.late, LATE_KEPT);
    } else if (evt.type === 'unknown' || !evt.sessionId) {
      state.unknown.push({ id: evt.id, receivedAt: evt.receivedAt, body: bounded(evt.body ?? evt) });
      keepLast(state.unknown, UNKNOWN_KEPT);
    } else {
      const since = now();
      state.pending.push({ event: evt, since });
      void this.reroute(evt, since);
    }
  }

  dismiss(raw: unknown): void {
    const parsed = parseOrphanDismissal(raw);
    if (!parsed.ok) return this.ignore('dismissOrphan', parsed.message);
    const { id, by } = parsed.value;
    const { state } = this;
    const before = state.orphaned.length;
    state.orphaned = state.orphaned.filter((o) => o.event.id !== id);
    if (state.orphaned.length < before) {
      state.dismissedCount++;
      log.info('orphan dismissed', { id, by });
    }
  }

  view(): InboxView {
    const { state } = this;
    return {
      pending: state.pending.map((p) => summary(p.event)),
      routed: { count: state.routedCount, last: state.routed },
      orphaned: state.orphaned,
      topups: state.topups,
      unknown: state.unknown,
      dismissedCount: state.dismissedCount,
      late: { count: state.lateCount ?? 0, last: state.late ?? [] },
      ignoredMalformed: state.malformedCount ?? 0,
      orphansDropped: state.orphansDropped ?? 0,
    };
  }

  private ignore(what: string, why: string): void {
    this.state.malformedCount = (this.state.malformedCount ?? 0) + 1;
    log.warn(`ignored a malformed ${what} signal`, { why });
  }

  private remember(id: string): void {
    this.seen.add(id);
    this.state.seenIds.push(id);
    if (this.state.seenIds.length > SEEN_IDS_KEPT) this.seen.delete(this.state.seenIds.shift()!);
  }

  private async reroute(evt: BankEventSignal, since: number): Promise<void> {
    await condition(() => this.reroutesRunning < MAX_CONCURRENT_REROUTES);
    this.reroutesRunning++;
    try {
      await this.rerouteOnce(evt, since);
    } finally {
      this.reroutesRunning--;
    }
  }

  private async rerouteOnce(evt: BankEventSignal, since: number): Promise<void> {
    const { options, state } = this;
    const remaining = Math.max(1_000, options.rerouteWindowMs - (now() - since));
    const rerouteBankEvent = rerouteActivity(remaining, options);
    let outcome: { delivered: string[] } | { reason: string };
    try {
      outcome = await rerouteBankEvent(evt);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = {
        reason: `no running workflow took it within ${Math.round(options.rerouteWindowMs / 1000)} s`,
      };
    }
    const wasPending = state.pending.some((p) => p.event.id === evt.id);
    state.pending = state.pending.filter((p) => p.event.id !== evt.id);
    if (this.onePerEvent && !wasPending) return; // another reroute of it has already said how it ended
    if ('delivered' in outcome) {
      state.routedCount++;
      state.routed.push({
        ...summary(evt),
        routedAt: new Date().toISOString(),
        delivered: outcome.delivered,
      });
      keepLast(state.routed, options.routedKept);
    } else {
      // The signed copy is for the payout's own check; an orphan kept for operators needs only the event,
      // and its Base64 body (up to 87 KB each) would soon outgrow what continue-as-new can carry.
      const { signed: _signed, ...event } = evt;
      state.orphaned.push({ event, orphanedAt: new Date().toISOString(), reason: outcome.reason });
      log.warn('bank event orphaned', { id: evt.id, type: evt.type, sessionId: evt.sessionId });
      for (const dropped of keepLast(state.orphaned, ORPHANS_KEPT)) {
        state.orphansDropped = (state.orphansDropped ?? 0) + 1;
        log.error('orphan dropped from the inbox (too many kept)', {
          id: dropped.event.id,
          type: dropped.event.type,
          sessionId: dropped.event.sessionId,
        });
      }
    }
  }
}

function summary(evt: BankEventSignal) {
  return {
    id: evt.id,
    type: evt.type,
    ...(evt.sessionId !== undefined ? { sessionId: evt.sessionId } : {}),
    receivedAt: evt.receivedAt,
  };
}

/** A body small enough to carry over continue-as-new, or only what size it was. */
function bounded(body: unknown): unknown {
  const size = JSON.stringify(body ?? null).length;
  return size <= UNKNOWN_BODY_MAX
    ? body
    : { omitted: `a body of ${size} JSON characters (kept up to ${UNKNOWN_BODY_MAX})` };
}

/** The ingress types an event nominal_topup only after its schema accepted the body; a hand-sent signal may not. */
function topupOf(evt: BankEventSignal): unknown {
  const b = (typeof evt.body === 'object' && evt.body !== null ? evt.body : {}) as Partial<NominalTopupEvent>;
  return {
    id: evt.id,
    receivedAt: evt.receivedAt,
    amount: b.amount,
    currency: b.currency,
    accountBalance: b.account_balance,
    paymentDate: b.paymentDate,
    accountNumber: b.account_number,
    docId: b.doc_id === undefined ? undefined : String(b.doc_id),
    docNum: b.doc_num === undefined ? undefined : String(b.doc_num),
  };
}
