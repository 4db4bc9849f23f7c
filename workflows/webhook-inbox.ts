import {
  ActivityFailure,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { RoutingActivities } from '../activities/routing';
import type { NominalTopupEvent } from '../src/bank/types/webhooks';
import { bankEventSignal, type BankEventSignal } from './shared/bank-event-contract';
import {
  dismissOrphanSignal,
  inboxQuery,
  type InboxTopup,
  type InboxView,
  type WebhookInboxInput,
  type WebhookInboxOptions,
} from './contracts/inbox';
import { invalidInput, parseBankEvent, parseOrphanDismissal, parseWebhookInboxInput } from './validation';
import type { WebhookInboxState } from './webhook-inbox-state';

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
 * Keeps the bank events no running payrun workflow took: session events are rerouted (the owning
 * workflow may start late, or the visibility store may lag) until the window closes and then kept
 * as orphans for an operator; nominal top-ups and unknown events are kept for reading.
 * Runs forever under WEBHOOK_INBOX_WORKFLOW_ID, continuing as new to keep its history short.
 */
export async function webhookInboxWorkflow(raw: WebhookInboxInput = {}): Promise<never> {
  const parsed = parseWebhookInboxInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  // Only the inbox's own continue-as-new carries state: a hand-started run given some would show
  // operators events the bank never sent, or hide ones it did.
  if (parsed.value.state !== undefined && workflowInfo().continuedFromExecutionRunId === undefined)
    throw invalidInput(
      'state: expected no state when starting the inbox (only its continue-as-new carries it)',
    );
  // Validation checked state's shape; only the inbox itself sets it, on continue-as-new.
  const input = parsed.value as WebhookInboxInput<WebhookInboxState>;
  const options = { ...DEFAULTS, ...input.options };
  const state = input.state ?? emptyInboxState();
  const seen = new Set(state.seenIds);
  const now = () => new Date().getTime(); // workflow time: deterministic on replay

  const remember = (id: string) => {
    seen.add(id);
    state.seenIds.push(id);
    if (state.seenIds.length > SEEN_IDS_KEPT) seen.delete(state.seenIds.shift()!);
  };
  const keepLast = <T>(list: T[], max: number) => list.splice(0, Math.max(0, list.length - max));

  let reroutesRunning = 0;
  const reroute = async (evt: BankEventSignal, since: number) => {
    await condition(() => reroutesRunning < MAX_CONCURRENT_REROUTES);
    reroutesRunning++;
    try {
      await rerouteOnce(evt, since);
    } finally {
      reroutesRunning--;
    }
  };
  const rerouteOnce = async (evt: BankEventSignal, since: number) => {
    const remaining = Math.max(1_000, options.rerouteWindowMs - (now() - since));
    const { rerouteBankEvent } = proxyActivities<RoutingActivities>({
      scheduleToCloseTimeout: remaining,
      startToCloseTimeout: Math.min(30_000, remaining),
      retry: {
        initialInterval: options.rerouteInitialIntervalMs,
        maximumInterval: options.rerouteMaxIntervalMs,
        backoffCoefficient: 2,
      },
    });
    let outcome: { delivered: string[] } | { reason: string };
    try {
      outcome = await rerouteBankEvent(evt);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = {
        reason: `no running workflow took it within ${Math.round(options.rerouteWindowMs / 1000)} s`,
      };
    }
    state.pending = state.pending.filter((p) => p.event.id !== evt.id);
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
  };

  // Anyone who can reach Temporal can signal the inbox: malformed input is counted and logged, never thrown on.
  const ignore = (what: string, why: string) => {
    state.malformedCount = (state.malformedCount ?? 0) + 1;
    log.warn(`ignored a malformed ${what} signal`, { why });
  };
  const accept = (raw: unknown) => {
    const parsed = parseBankEvent(raw);
    if (!parsed.ok) return ignore('bankEvent', parsed.message);
    const evt = parsed.value;
    if (seen.has(evt.id)) return; // the bank resent it, or two routes delivered it
    remember(evt.id);
    if (evt.type === 'nominal_topup') {
      state.topups.push(topupOf(evt));
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
      void reroute(evt, since);
    }
  };

  setHandler(bankEventSignal, accept);
  setHandler(dismissOrphanSignal, (raw) => {
    const parsed = parseOrphanDismissal(raw);
    if (!parsed.ok) return ignore('dismissOrphan', parsed.message);
    const { id, by } = parsed.value;
    const before = state.orphaned.length;
    state.orphaned = state.orphaned.filter((o) => o.event.id !== id);
    if (state.orphaned.length < before) {
      state.dismissedCount++;
      log.info('orphan dismissed', { id, by });
    }
  });
  setHandler(inboxQuery, (): InboxView => view(state));

  // Reroutes that were running when the previous run continued as new resume with what is left of their window.
  for (const p of state.pending) void reroute(p.event, p.since);

  await condition(
    () =>
      workflowInfo().continueAsNewSuggested ||
      workflowInfo().historyLength >= options.continueAsNewAfterEvents,
  );
  // Reroutes still in flight are carried as pending and restarted; a second delivery is harmless (ids dedupe).
  return continueAsNew<typeof webhookInboxWorkflow>({ options: input.options, state });
}

function summary(evt: BankEventSignal) {
  return {
    id: evt.id,
    type: evt.type,
    ...(evt.sessionId !== undefined ? { sessionId: evt.sessionId } : {}),
    receivedAt: evt.receivedAt,
  };
}

function view(state: WebhookInboxState): InboxView {
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

/** A body small enough to carry over continue-as-new, or only what size it was. */
function bounded(body: unknown): unknown {
  const size = JSON.stringify(body ?? null).length;
  return size <= UNKNOWN_BODY_MAX
    ? body
    : { omitted: `a body of ${size} JSON characters (kept up to ${UNKNOWN_BODY_MAX})` };
}

function topupOf(evt: BankEventSignal): InboxTopup {
  // The ingress only types an event nominal_topup after its schema accepted the body.
  const b = evt.body as NominalTopupEvent;
  return {
    id: evt.id,
    receivedAt: evt.receivedAt,
    amount: b.amount,
    currency: b.currency,
    accountBalance: b.account_balance,
    paymentDate: b.paymentDate,
    accountNumber: b.account_number,
    docId: String(b.doc_id),
    docNum: String(b.doc_num),
  };
}
