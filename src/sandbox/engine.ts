import type { ScheduledEvent } from './clock';
import { Settlement } from './settlement';
import { LIMITS, type Sandbox } from './core';
import { badState, ApiError } from './http/errors';
import { sessionView } from './serialize';
import type { Operation, Session } from './state/types';
import { TEST_CARDS, TEST_PHONES } from './test-values';
import type { WebhookDispatcher } from './webhooks/dispatcher';
import { getPath } from './util';

/**
 * The bank's state machines. Session: created → in_progress → accepted | cancelled (| error).
 * Operation: in_progress → pending (ready_to_confirm / ready_to_capture) → succeeded | failed.
 * Every transition after the request that started it is a scheduled clock event, so time travel drives it.
 */
export class Engine {
  readonly money: Settlement;

  constructor(
    private sb: Sandbox,
    readonly webhooks: WebhookDispatcher,
  ) {
    this.money = new Settlement(sb, this);
    const on = (kind: string, fn: (s: Session, op: Operation, ev: ScheduledEvent) => void): void =>
      sb.clock.on(kind, (ev) => {
        const found = this.find(ev.payload.op as string);
        if (found) fn(found.s, found.op, ev);
      });
    on('op.ready', (s, op) => this.ready(s, op));
    on('op.action_done', (s, op) => op.awaiting === 'action' && this.toPending(s, op));
    on(
      'op.action_expire',
      (s, op, ev) =>
        op.awaiting === 'action' &&
        this.fail(s, op, ev.payload.code as string, 'customer action not completed in time'),
    );
    on(
      'op.confirm_expire',
      (s, op) =>
        op.awaiting === 'confirm' && this.fail(s, op, 'confirm_timeout', 'not confirmed within 4 hours'),
    );
    on('op.finish', (s, op) => this.finish(s, op));
    on('op.verify', (s, op) => this.verify(s, op));
  }

  find(opId: string): { s: Session; op: Operation } | undefined {
    const s = this.sb.state.sessions[this.sb.state.opIndex[opId] ?? ''];
    const op = s?.operations.find((o) => o.id === opId);
    return s && op ? { s, op } : undefined;
  }

  touch(s: Session): void {
    s.updated_at = this.sb.ts();
    this.sb.touch();
  }

  emit(type: string, s: Session, extra: Record<string, unknown> = {}): void {
    this.webhooks.emit(type, { type, session: sessionView(this.sb, s), ...extra }, s.id);
  }

  /** Adds an operation to a session and lets the bank work on it. */
  start(s: Session, op: Operation): void {
    const busy = s.operations.find((o) => o.status === 'in_progress' || o.status === 'pending');
    if (busy) throw badState(`session ${s.id} already has operation ${busy.id} in progress`);
    if (s.status !== 'created')
      throw badState(`session ${s.id} is ${s.status}; operations start only in a created session`);
    s.operations.push(op);
    this.sb.state.opIndex[op.id] = s.id;
    s.status = 'in_progress';
    this.touch(s);
    const t = this.sb.timings;
    if (op.flavor === 'verification') {
      this.sb.clock.schedule(t.verificationMs, 'op.verify', { op: op.id });
      return;
    }
    this.sb.clock.schedule(t.readyToConfirmMs, 'op.ready', { op: op.id });
    this.sb.clock.scheduleAt(op.createdAtMs + LIMITS.confirmWindowMs, 'op.confirm_expire', { op: op.id });
  }

  private ready(s: Session, op: Operation): void {
    if (op.status !== 'in_progress') return;
    const t = this.sb.timings;
    const card = getPath(op.method, 'card.bank_card.number');
    const fpsPay = op.kind === 'payment' && op.method.type === 'faster_payment_system';
    if (op.kind === 'payment' && (card === TEST_CARDS.THREE_DS || fpsPay)) {
      op.awaiting = 'action';
      const url = `${this.sb.baseUrl}/__sandbox/${fpsPay ? 'qr' : '3ds'}/${op.id}`;
      op.customer_interaction = {
        type: 'redirect',
        redirect: { url, base_url: url, method: 'GET', qs: {}, params: {} },
      };
      this.touch(s);
      this.emit('action_required', s);
      const phone = getPath(op.method, 'faster_payment_system.phone');
      if (fpsPay && phone !== TEST_PHONES.QR_NEVER_PAID)
        this.sb.clock.schedule(t.fpsPaymentMs, 'op.action_done', { op: op.id });
      this.sb.clock.schedule(fpsPay ? t.qrLifetimeMs : t.threeDsTimeoutMs, 'op.action_expire', {
        op: op.id,
        code: fpsPay ? 'qr_expired' : '3ds_timeout',
      });
      return;
    }
    this.toPending(s, op);
  }

  /** The customer finished the redirect (3DS page or QR) — used by /__sandbox/3ds/:id. */
  completeAction(opId: string, success: boolean): boolean {
    const f = this.find(opId);
    if (!f || f.op.awaiting !== 'action') return false;
    if (success) this.toPending(f.s, f.op);
    else this.fail(f.s, f.op, 'declined_by_issuer_bank', 'customer authentication failed');
    return true;
  }

  private toPending(s: Session, op: Operation): void {
    op.status = 'pending';
    op.customer_interaction = undefined;
    if (op.twoStage) {
      op.awaiting = 'capture';
      s.next_action = 'capture';
      this.touch(s);
      this.emit('ready_to_capture', s);
      return;
    }
    op.awaiting = 'confirm';
    s.next_action = 'confirm';
    this.touch(s);
    const ci =
      op.flavor === 'nominal'
        ? { confirm_information: { amount_details: { amount: op.amount, currency: op.currency } } }
        : {};
    this.emit('ready_to_confirm', s, ci);
  }

  current(s: Session): Operation | undefined {
    return (
      [...s.operations].reverse().find((o) => o.status === 'pending' || o.status === 'in_progress') ??
      s.operations.at(-1)
    );
  }

  confirm(s: Session, confirmInformation: unknown): void {
    const op = this.current(s);
    if (!op) throw badState(`session ${s.id} has no operation to confirm`);
    const late =
      this.sb.now() > op.createdAtMs + LIMITS.confirmWindowMs || op.error?.code === 'confirm_timeout';
    if (late)
      throw new ApiError(
        409,
        'confirm_timeout',
        `confirm sent more than 4 hours after operation ${op.id} was created`,
      );
    if (op.confirmedAt) return; // a repeated confirm changes nothing
    if (op.status !== 'pending' || op.awaiting !== 'confirm')
      throw badState(
        `operation ${op.id} is ${op.status}${op.awaiting ? ` awaiting ${op.awaiting}` : ''}; confirm only after ready_to_confirm`,
      );
    if (op.flavor === 'nominal' && (typeof confirmInformation !== 'object' || confirmInformation === null))
      throw new ApiError(
        400,
        'invalid_request',
        'confirm_information: not_blank (required for nominal-account operations)',
      );
    op.confirmedAt = this.sb.ts();
    op.awaiting = undefined;
    s.next_action = undefined;
    s.actions = { ...s.actions, confirm: op.confirmedAt };
    this.touch(s);
    this.sb.clock.schedule(this.sb.timings.paymentFinishedMs, 'op.finish', { op: op.id });
  }

  cancel(s: Session): void {
    const op = this.current(s);
    if (!op || op.status !== 'pending' || (op.awaiting !== 'confirm' && op.awaiting !== 'capture'))
      throw badState(
        `session ${s.id}: cancel only after ready_to_confirm or ready_to_capture, before confirm or capture`,
      );
    this.fail(s, op, 'cancelled_by_partner', 'operation cancelled by the partner');
  }

  capture(s: Session, amount: number | undefined): void {
    const op = this.current(s);
    if (!op || op.awaiting !== 'capture')
      throw badState(`session ${s.id}: capture only after ready_to_capture`);
    if (amount !== undefined && amount > op.amount)
      throw new ApiError(
        400,
        'invalid_request',
        `amount_details.amount: must not be greater than the held amount ${op.amount}`,
      );
    op.settledAmount = amount ?? op.amount;
    op.capturedAt = this.sb.ts();
    op.awaiting = undefined;
    s.next_action = undefined;
    s.actions = { ...s.actions, capture: op.capturedAt };
    this.touch(s);
    this.sb.clock.schedule(this.sb.timings.paymentFinishedMs, 'op.finish', { op: op.id });
  }

  fail(s: Session, op: Operation, code: string, description: string, webhooks = true): void {
    if (op.status === 'succeeded' || op.status === 'failed') return;
    op.status = 'failed';
    op.awaiting = undefined;
    op.customer_interaction = undefined;
    op.finished_at = this.sb.ts();
    op.error = { code, description };
    s.status = 'cancelled';
    s.next_action = undefined;
    s.error = { code: 'session_cancelled', description: `session cancelled: ${code}` };
    this.touch(s);
    if (webhooks) this.emit('payment_finished', s);
  }

  finish(s: Session, op: Operation, webhooks = true): void {
    if (op.status !== 'pending' && op.status !== 'in_progress') return;
    if (op.outcome === 'stay_pending') return;
    if (op.outcome === 'decline')
      return this.fail(s, op, 'declined_by_issuer_bank', 'declined by the issuer bank', webhooks);
    const refusal = this.money.refusal(op);
    if (refusal) return this.fail(s, op, refusal[0], refusal[1], webhooks);
    const n = Number(op.id.replace(/\D/g, ''));
    op.status = 'succeeded';
    op.finished_at = this.sb.ts();
    op.settledAmount ??= op.amount;
    op.transaction_info = {
      rrn: String(600000000000 + n * 7),
      auth_code: String(100000 + ((n * 7919) % 900000)),
    };
    s.status = 'accepted';
    s.next_action = undefined;
    this.money.settle(s, op);
    this.touch(s);
    if (webhooks) this.emit('payment_finished', s);
    if (op.kind === 'payout' && op.flavor !== 'withdrawal') this.money.afterPayout(op);
  }

  private verify(s: Session, op: Operation): void {
    if (op.status !== 'in_progress') return;
    const phone = getPath(op.method, 'bank_account.faster_payment_system_verification.phone');
    if (phone === TEST_PHONES.FPS_NOT_FOUND)
      return this.fail(s, op, 'recipient_not_found', 'recipient is not registered in FPS');
    op.status = 'succeeded';
    op.finished_at = this.sb.ts();
    s.status = 'accepted';
    this.touch(s);
    this.emit('payment_finished', s);
  }

  refund(
    s: Session,
    amount: number | undefined,
    metadata: unknown,
    idempotencyKey: string | undefined,
  ): void {
    this.money.refund(s, amount, metadata, idempotencyKey);
  }
}
