import { addBusinessDays } from './clock';
import type { Sandbox } from './core';
import { ApiError } from './http/errors';
import { addLedger, book, depositAccount, settlementAccount } from './ledger';
import type { WebhookDispatcher } from './webhooks/dispatcher';
import type { Operation, ReturnVia, Session } from './state/types';
import { isLinked } from './links';
import { npdProfile } from './test-values';
import { getPath } from './util';

/** What settlement needs of the session engine (engine.ts), which owns it: no import back. */
export interface SettlementEngine {
  find(opId: string): { s: Session; op: Operation } | undefined;
  touch(s: Session): void;
  emit(type: string, s: Session, extra?: Record<string, unknown>): void;
  readonly webhooks: WebhookDispatcher;
}

/** Money side of the engine: funds checks, bookings and ledger entries, refunds, returns, confirmation_payout. */
export class Settlement {
  constructor(
    private sb: Sandbox,
    private engine: SettlementEngine,
  ) {
    const on = (
      kind: string,
      fn: (s: Session, op: Operation, payload: Record<string, unknown>) => void,
    ): void =>
      sb.clock.on(kind, (ev) => {
        const found = engine.find(ev.payload.op as string);
        if (found) fn(found.s, found.op, ev.payload);
      });
    on('op.return', (s, op, p) =>
      this.returnPayout(s, op, (p.via as ReturnVia | undefined) ?? 'both', Number(p.keep ?? 0)),
    );
    on('op.confirmation_payout', (s, op, p) => this.confirmationPayout(s, op, p.event as string));
    on('refund.accept', (s, op, p) => this.acceptRefund(s, op, p.refund as string));
  }

  /** Why a succeeding payout cannot be paid, if it cannot. */
  refusal(op: Operation): [string, string] | undefined {
    if (op.kind !== 'payout') return undefined;
    const inn = getPath(op.fiscalization_details, 'professional_income_taxpayer.tax_reference');
    if (typeof inn === 'string') {
      const p = npdProfile(inn);
      if (!p.isTaxpayer)
        return ['taxpayer_not_registered', 'recipient is not a professional income taxpayer'];
      if (!isLinked(this.sb, inn))
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

  debitAmount(op: Operation): number {
    const src = getPath(op.extra, 'amounts.source.amount');
    return typeof src === 'number' ? src : op.amount;
  }

  settle(s: Session, op: Operation): void {
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

  afterPayout(op: Operation): void {
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

  confirmationPayout(s: Session, op: Operation, event: string): void {
    this.engine.webhooks.emit(
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
    this.engine.touch(s);
    this.sb.clock.schedule(this.sb.timings.refundMs, 'refund.accept', { op: op.id, refund: id });
  }

  acceptRefund(s: Session, op: Operation, refundId: string): void {
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
    this.engine.touch(s);
    this.engine.emit('payment_refunded', s);
  }

  /**
   * The recipient's bank sends a succeeded payout back: the deposit account is credited under the
   * payout's session, and the bank tells payrun by `via`: the signed payment_refunded webhook, the
   * credit's line on that day's statement, or both (a webhook-only return moves the money, but no
   * statement shows its line).
   */
  returnPayout(s: Session, op: Operation, via: ReturnVia = 'both', keepKopecks = 0): void {
    if (op.status !== 'succeeded' || op.refunds.some((r) => r.returned)) return;
    const id = this.sb.nextId('rf');
    const now = this.sb.ts();
    op.refunds.push({
      id,
      status: 'accepted',
      created_at: now,
      finished_at: now,
      amount: op.amount - keepKopecks,
      currency: op.currency,
      returned: true,
    });
    book(this.sb, depositAccount(this.sb), {
      amount: this.debitAmount(op) - keepKopecks,
      currency: 'RUB',
      type: 'credit',
      purpose: `Return of payout ${op.id}`,
      session_id: s.id,
      transaction_id: id,
      ...(via === 'webhook' ? { unstated: true as const } : {}),
    });
    addLedger(this.sb, s, op, 'return', op.amount - keepKopecks, null);
    this.engine.touch(s);
    if (via !== 'statement') this.engine.emit('payment_refunded', s);
  }
}
