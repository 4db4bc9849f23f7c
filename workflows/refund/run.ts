import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { PaymentSession, Refund } from '../../src/bank/types/session';
import { refundsOf } from '../shared/bank-session';
import { PAYOUT_REF, SESSION_ID, STATE } from '../shared/search-attributes';
import { ageText, iso, workflowNow } from '../shared/time';
import { parseBankEvent } from '../shared/bank-event-contract';
import { earlierRefundRuns, getSession, refundSession } from './activities';
import {
  REFUND_ALREADY_DONE_TYPE,
  REFUND_CONFLICT_TYPE,
  REFUND_FAILED_TYPE,
  REFUND_NEEDS_ATTENTION_TYPE,
  refundStatusSchema,
  type EarlierRefundRun,
  type RefundInput,
  type RefundStatus,
} from './contract';

/** Histories recorded before the guard (id rule, earlier runs, identity key) replay the old way. */
const GUARD_PATCH = 'refund-at-most-once';
/** The bank honours an idempotency key for 24 hours; payrun relies on it for 23. */
const KEY_WINDOW_MS = 23 * 3_600_000;
const NOTES_KEPT = 50;
const SEEN_EVENTS_KEPT = 200;

/** Everything a refund run holds: one plain object, so a test can hold it to its schema. */
export const refundRunStateSchema = () =>
  z.strictObject({
    status: refundStatusSchema(),
    /** bankEvent ids taken, newest last (at most SEEN_EVENTS_KEPT). */
    seen: z.array(z.string()),
    /** A payment_refunded for the session arrived: read session/status (a signal proves nothing by itself). */
    nudged: z.boolean(),
    /** Refunds the session had before ours was asked for: not ours. */
    knownBefore: z.array(z.string()),
  });
export type RefundRunState = z.infer<ReturnType<typeof refundRunStateSchema>>;

/** The refund's own marker in session/refund's metadata, echoed back where the bank shows it. */
const metadataReference = (r: Refund): unknown =>
  (r as { metadata?: { payrun?: { reference?: unknown } } }).metadata?.payrun?.reference;

/**
 * One refund run: earlier runs of the reference settled → session/refund under a key derived from the
 * refund's identity (reference and session, the same for every run) → payment_refunded (or session/status
 * when the webhook is lost) → refunded. docs/payouts.md, "A refund".
 */
export class RefundRun {
  readonly state: RefundRunState;

  constructor(private readonly input: RefundInput) {
    this.state = {
      status: {
        reference: input.reference,
        state: 'requesting',
        sessionId: input.sessionId,
        ...(input.amount !== undefined ? { amount: input.amount } : {}),
        timestamps: { started: iso() },
        notes: [],
      },
      seen: [],
      nudged: false,
      knownBefore: [],
    };
  }

  get status(): RefundStatus {
    return this.state.status;
  }

  /**
   * Anyone who can reach Temporal can send this signal: it is checked, taken once, and only prompts a
   * read of the session from the bank; what the signal says about refunds is never believed.
   */
  onBankEvent(raw: unknown): void {
    const event = parseBankEvent(raw);
    if (!event.ok) return this.note(`ignored a malformed bankEvent signal: ${event.message}`);
    const evt = event.value;
    const { seen } = this.state;
    if (seen.includes(evt.id) || evt.sessionId !== this.input.sessionId) return;
    seen.push(evt.id);
    if (seen.length > SEEN_EVENTS_KEPT) seen.shift();
    if (evt.type === 'payment_refunded') this.state.nudged = true;
  }

  async run(): Promise<RefundStatus> {
    const { input, status } = this;
    const { workflowId, runId, firstExecutionRunId } = workflowInfo();
    upsertSearchAttributes([
      { key: PAYOUT_REF, value: input.reference },
      { key: SESSION_ID, value: input.sessionId },
      { key: STATE, value: status.state },
    ]);
    const guarded = patched(GUARD_PATCH);
    // Every run of this reference sends the same key: the bank answers a repeat with the first refund.
    const runKey = guarded ? `refund:${input.sessionId}` : firstExecutionRunId;
    if (guarded) {
      const adopted = this.settleEarlierRuns(await earlierRefundRuns({ workflowId, currentRunId: runId }));
      if (adopted) {
        status.refundId = adopted;
        this.note(
          `refund ${adopted} was requested by an earlier run of this reference: following it, not refunding again`,
        );
      }
    }
    if (!status.refundId) await this.request(guarded, workflowId, runKey);
    status.timestamps.requested = iso();
    this.setState('awaiting_refund');
    await this.awaitAccepted();
    status.timestamps.refunded = iso();
    this.setState('refunded');
    return status;
  }

  private async request(guarded: boolean, workflowId: string, runKey: string): Promise<void> {
    const { input, status } = this;
    let session: PaymentSession;
    try {
      const before = await getSession({ sessionId: input.sessionId });
      this.state.knownBefore = refundsOf(before).map((r) => r.id);
      const ours = guarded
        ? refundsOf(before).find((r) => metadataReference(r) === input.reference)
        : undefined;
      session = ours
        ? before
        : await refundSession({
            sessionId: input.sessionId,
            amount: input.amount,
            workflowId,
            runKey,
            reference: input.reference,
          });
      if (ours) {
        status.refundId = ours.id;
        this.note(`the bank already holds refund ${ours.id} for this reference: not refunding again`);
      }
    } catch (err) {
      const cause = (err instanceof ActivityFailure ? err.cause : undefined) as
        ApplicationFailure | undefined;
      status.failure = { code: cause?.type ?? 'refund_failed', reason: cause?.message ?? String(err) };
      // A refusal is the bank's answer: nothing refunded. Anything else (the calls kept failing for
      // hours) may have reached the bank; the identity key makes a later run safe within 24 hours.
      if (guarded && cause?.nonRetryable !== true)
        return this.needsAttention(`session/refund did not answer: ${status.failure.reason}`);
      this.setState('failed');
      return this.end(REFUND_FAILED_TYPE, `refund failed: ${status.failure.reason}`);
    }
    const ours = this.findOurs(session);
    if (ours) status.refundId = ours.id;
  }

  /** Polls, doubling up to an hour, and reads the session at once when payment_refunded says so. */
  private async awaitAccepted(): Promise<void> {
    const { input, status } = this;
    let interval = input.pollAfterMs ?? 60_000;
    for (;;) {
      const prompted = await condition(() => this.state.nudged, interval);
      this.state.nudged = false;
      const current = this.findOurs(await getSession({ sessionId: input.sessionId }));
      if (current) status.refundId ??= current.id;
      if (current && current.status === 'accepted') {
        if (!prompted) this.note('refund accepted per session/status (webhook late or lost)');
        return;
      }
      if (!prompted) interval = Math.min(interval * 2, 3_600_000);
    }
  }

  /** Refunds that existed before ours are not ours: the answer to session/refund names the new one. */
  private findOurs(session: PaymentSession): Refund | undefined {
    const { refundId } = this.status;
    return (
      refundsOf(session).find((r) => r.id === refundId) ??
      (refundId ? undefined : refundsOf(session).find((r) => !this.state.knownBefore.includes(r.id)))
    );
  }

  private note(text: string): void {
    const { notes } = this.status;
    notes.push(`${iso()} ${text}`);
    if (notes.length > NOTES_KEPT) notes.splice(0, notes.length - NOTES_KEPT);
  }

  private setState(state: RefundStatus['state']): void {
    this.status.state = state;
    upsertSearchAttributes([{ key: STATE, value: state }]);
  }

  private end(type: string, message: string, details: RefundStatus = this.status): never {
    throw ApplicationFailure.create({ message, type, details: [details], nonRetryable: true });
  }

  private needsAttention(reason: string): never {
    this.status.failure = { code: 'needs_attention', reason };
    this.setState('needs_attention');
    return this.end(REFUND_NEEDS_ATTENTION_TYPE, reason);
  }

  /**
   * Ends this run when an earlier run of the reference refunded; returns the refund id an earlier run in
   * doubt is known to have requested (this run follows it instead of asking for another).
   */
  private settleEarlierRuns(runs: EarlierRefundRun[]): string | undefined {
    const { input } = this;
    const done = runs.find((r) => r.verdict === 'refunded' && r.status);
    if (done?.status) {
      const same = done.status.sessionId === input.sessionId && done.status.amount === input.amount;
      return same
        ? this.end(
            REFUND_ALREADY_DONE_TYPE,
            `refund ${input.reference} was already made (${done.status.refundId ?? 'see the earlier run'}); not refunded again`,
            done.status,
          )
        : this.end(
            REFUND_CONFLICT_TYPE,
            `reference ${input.reference} already refunded another session or amount; nothing refunded`,
            done.status,
          );
    }
    for (const run of runs.filter((r) => r.verdict === 'in_doubt')) {
      if (run.status?.refundId) return run.status.refundId;
      if (run.status && run.status.sessionId !== input.sessionId)
        return this.needsAttention(
          `an earlier run ${run.runId} of this reference asked to refund another session`,
        );
      // Its request, if it reached the bank, carried the key this run sends: the bank answers with that
      // refund. It asked no earlier than its session/refund was scheduled, and never before it started.
      const since = Date.parse(run.firstBankCallAt ?? run.startedAt ?? '');
      const age = workflowNow() - since;
      const asked = run.firstBankCallAt ? 'may have asked for a refund' : 'started';
      if (Number.isNaN(since))
        return this.needsAttention(
          `an earlier run ${run.runId} (${run.closeStatus}) may have asked for a refund and its history could not be read; check at the bank whether session ${input.sessionId} has a refund whose metadata names reference ${input.reference}`,
        );
      if (!(age < KEY_WINDOW_MS))
        return this.needsAttention(
          `an earlier run ${run.runId} (${run.closeStatus}) ${asked} ${ageText(age)} ago (${iso(since)}), beyond the 23 hours the bank's key is relied on; check at the bank whether session ${input.sessionId} has a refund whose metadata names reference ${input.reference}`,
        );
      this.note(
        `earlier run ${run.runId} (${run.closeStatus}) ${asked} ${ageText(age)} ago: if it reached the bank, this run's same key gets its refund`,
      );
    }
    return undefined;
  }
}
