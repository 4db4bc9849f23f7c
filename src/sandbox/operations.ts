import { addBusinessDays, type ScheduledEvent } from './clock';
import { LIMITS, type Sandbox } from './core';
import { badState, ApiError } from './http/errors';
import { addLedger, book, depositAccount, settlementAccount } from './ledger';
import { sessionView } from './serialize';
import type { Operation, Session } from './state/types';
import { npdProfile, TEST_CARDS, TEST_PHONES } from './test-values';
import type { WebhookDispatcher } from './webhooks/dispatcher';
import { getPath } from './util';

/**
 * The bank's state machines. Session: created → in_progress → accepted | cancelled (| error).
 * Operation: in_progress → pending (ready_to_confirm / ready_to_capture) → succeeded | failed.
 * Every transition after the request that started it is a scheduled clock event, so time travel drives it.
 */
export class Engine {
  constructor(
    private sb: Sandbox,
    private webhooks: WebhookDispatcher,
  ) {
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
    on('op.return', (s, op) => this.returnPayout(s, op));
    on('op.confirmation_payout', (s, op, ev) => this.confirmationPayout(s, op, ev.payload.event as string));
    on('refund.accept', (s, op, ev) => this.acceptRefund(s, op, ev.payload.refund as string));
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

  /** Why a succeeding payout cannot be paid, if it cannot. */
  private refusal(op: Operation): [string, string] | undefined {
    if (op.kind !== 'payout') return undefined;
    const inn = getPath(op.fiscalization_details, 'professional_income_taxpayer.tax_reference');
    if (typeof inn === 'string') {
      const p = npdProfile(inn);
      if (!p.isTaxpayer)
        return ['taxpayer_not_registered', 'recipient is not a professional income taxpayer'];
      if (!p.isLinked)
        return ['taxpayer_not_linked', 'recipient has not linked the partner in the tax service'];
    }
    if (op.flavor === 'withdrawal') {
      const w = this.sb.state.wallets[op.walletId ?? ''];
      if (!w || w.status !== 'active') return ['wallet_not_found', 'sender wallet not found'];
      if (w.balance < op.amount)
        return ['insufficient_funds', 'wallet balance is lower than the payout amount'];
      return undefined;
    }
    if (depositAccount(this.sb).balance < this.debitAmount(op))
      return ['insufficient_funds', 'deposit (security) account balance is lower than the payout amount'];
    return undefined;
  }

  private debitAmount(op: Operation): number {
    const src = getPath(op.extra, 'amounts.source.amount');
    return typeof src === 'number' ? src : op.amount;
  }

  finish(s: Session, op: Operation, webhooks = true): void {
    if (op.status !== 'pending' && op.status !== 'in_progress') return;
    if (op.outcome === 'stay_pending') return;
    if (op.outcome === 'decline')
      return this.fail(s, op, 'declined_by_issuer_bank', 'declined by the issuer bank', webhooks);
    const refusal = this.refusal(op);
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
    this.settle(s, op);
    this.touch(s);
    if (webhooks) this.emit('payment_finished', s);
    if (op.kind === 'payout' && op.flavor !== 'withdrawal') this.afterPayout(op);
  }

  private settle(s: Session, op: Operation): void {
    const sb = this.sb;
    const amount = op.settledAmount ?? op.amount;
    if (op.kind === 'payout') {
      if (op.flavor === 'withdrawal') {
        sb.state.wallets[op.walletId!]!.balance -= amount;
        addLedger(sb, s, op, 'withdrawal', amount, op.idempotencyKey);
        return;
      }
      book(sb, depositAccount(sb), {
        amount: this.debitAmount(op),
        currency: 'RUB',
        type: 'debet',
        purpose: `Payout ${op.id}`,
        session_id: s.id,
        transaction_id: op.id,
      });
      addLedger(sb, s, op, 'payout', amount, op.idempotencyKey);
      const inn = getPath(op.fiscalization_details, 'professional_income_taxpayer.tax_reference');
      if (typeof inn === 'string') {
        const id = `20${op.id.replace(/\D/g, '').padStart(8, '0')}`;
        op.receipt = { id, link: `https://lknpd.nalog.ru/api/v1/receipt/${inn}/${id}/print` };
      }
      return;
    }
    if (op.flavor === 'topup') {
      sb.state.wallets[op.walletId!]!.balance += amount;
      addLedger(sb, s, op, 'topup', amount, op.idempotencyKey);
      return;
    }
    book(sb, settlementAccount(sb), {
      amount,
      currency: 'RUB',
      type: 'credit',
      purpose: `Acquiring payment ${op.id}`,
      session_id: s.id,
      transaction_id: op.id,
    });
    addLedger(sb, s, op, op.twoStage ? 'capture' : 'payment', amount, op.idempotencyKey);
    if (op.payment_options?.recurrent === true) {
      const token = `rt_${op.id.slice(3)}${(Number(op.id.slice(3)) * 2654435761) % 1e9}`;
      const card = getPath(op.method, 'card.bank_card.number');
      sb.state.tokens[token] = {
        token,
        project: s.project,
        created_at: sb.ts(),
        finished_at: sb.ts(sb.now() + 3 * 365 * 86400_000),
        is_active: true,
        cardNumber: typeof card === 'string' ? card : '',
      };
      op.recurrentToken = token;
    }
  }

  private afterPayout(op: Operation): void {
    const t = this.sb.timings;
    if (op.outcome === 'returned') this.sb.clock.schedule(t.returnMs, 'op.return', { op: op.id });
    if (op.outcome === 'confirmation_payout_never') return;
    const fast =
      op.method.type === 'card' ||
      getPath(op.method, 'bank_account.system_type') === 'faster_payment_system' ||
      getPath(op.method, 'bank_account.ru.is_fast') === true;
    const event = fast ? "Funds credited recipient's account" : 'Payout accepted Central Bank';
    if (op.outcome === 'confirmation_payout_late')
      this.sb.clock.scheduleAt(addBusinessDays(this.sb.now(), 7), 'op.confirmation_payout', {
        op: op.id,
        event,
      });
    else this.sb.clock.schedule(t.confirmationPayoutMs, 'op.confirmation_payout', { op: op.id, event });
  }

  private confirmationPayout(s: Session, op: Operation, event: string): void {
    this.webhooks.emit(
      'confirmation_payout',
      {
        type: 'confirmation_payout',
        event,
        event_date: this.sb.ts(),
        transaction_id: op.id,
        session_id: s.id,
      },
      s.id,
    );
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
    const op = s.operations.find((o) => o.kind === 'payment' && o.status === 'succeeded');
    if (!op)
      throw new ApiError(
        400,
        'invalid_request',
        'session_id: refunds are possible only in a session with a succeeded payment',
      );
    const refunded = op.refunds.reduce((sum, r) => sum + r.amount, 0);
    const left = (op.settledAmount ?? op.amount) - refunded;
    const value = amount ?? left;
    if (left <= 0)
      throw new ApiError(400, 'invalid_request', 'session_id: payment is already fully refunded');
    if (value > left)
      throw new ApiError(
        400,
        'invalid_request',
        `amount_details.amount: must not be greater than the refundable amount ${left}`,
      );
    if (op.flavor !== 'topup' && depositAccount(this.sb).balance < value)
      throw new ApiError(
        409,
        'insufficient_funds',
        'deposit (security) account balance is lower than the refund amount',
      );
    const id = this.sb.nextId('rf');
    op.refunds.push({
      id,
      status: 'in_progress',
      created_at: this.sb.ts(),
      amount: value,
      currency: op.currency,
      metadata,
      idempotencyKey,
    });
    this.touch(s);
    this.sb.clock.schedule(this.sb.timings.refundMs, 'refund.accept', { op: op.id, refund: id });
  }

  private acceptRefund(s: Session, op: Operation, refundId: string): void {
    const r = op.refunds.find((x) => x.id === refundId);
    if (!r || r.status !== 'in_progress') return;
    r.status = 'accepted';
    r.finished_at = this.sb.ts();
    if (op.flavor === 'topup') this.sb.state.wallets[op.walletId!]!.balance -= r.amount;
    else
      book(this.sb, depositAccount(this.sb), {
        amount: r.amount,
        currency: 'RUB',
        type: 'debet',
        purpose: `Refund ${r.id} of ${op.id}`,
        session_id: s.id,
        transaction_id: r.id,
      });
    addLedger(this.sb, s, op, 'refund', r.amount, r.idempotencyKey);
    this.touch(s);
    this.emit('payment_refunded', s);
  }

  private returnPayout(s: Session, op: Operation): void {
    if (op.status !== 'succeeded' || op.refunds.some((r) => r.returned)) return;
    const id = this.sb.nextId('rf');
    const now = this.sb.ts();
    op.refunds.push({
      id,
      status: 'accepted',
      created_at: now,
      finished_at: now,
      amount: op.amount,
      currency: op.currency,
      returned: true,
    });
    book(this.sb, depositAccount(this.sb), {
      amount: this.debitAmount(op),
      currency: 'RUB',
      type: 'credit',
      purpose: `Return of payout ${op.id}`,
      session_id: s.id,
      transaction_id: id,
    });
    addLedger(this.sb, s, op, 'return', op.amount, null);
    this.touch(s);
    this.emit('payment_refunded', s);
  }
}
