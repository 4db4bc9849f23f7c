import type { Sandbox } from './core';
import type { Json, Operation, Refund, Session } from './state/types';
import { cardBrand, clone, isObject, maskAccount } from './util';

/** The method block as the bank echoes it: card numbers become brand/last4/bin, account numbers masked. */
export function maskMethod(method: Json): Json {
  const m = clone(method);
  const card = isObject(m.card) ? m.card : undefined;
  const bank = card && isObject(card.bank_card) ? card.bank_card : undefined;
  if (card && bank && typeof bank.number === 'string') {
    const num = bank.number;
    card.bank_card = {
      brand: cardBrand(num),
      last4: num.slice(-4),
      bin: num.slice(0, 6),
      card_id: `card_${num.slice(0, 6)}${num.slice(-4)}`,
      country_iso3: 'RUS',
    };
  }
  const ba = isObject(m.bank_account) ? m.bank_account : undefined;
  const ru = ba && isObject(ba.ru) ? ba.ru : undefined;
  if (ru && typeof ru.account === 'string') ru.account = maskAccount(ru.account);
  return m;
}

function refundView(sb: Sandbox, r: Refund): Json {
  return {
    id: r.id,
    status: r.status,
    created_at: r.created_at,
    ...(r.finished_at ? { finished_at: r.finished_at } : {}),
    amount_details: { amount: r.amount, currency: r.currency },
    ...(r.is_chargeback ? { is_chargeback: true } : {}),
    ...(r.metadata !== undefined ? { metadata: r.metadata } : {}),
  };
}

export function operationView(sb: Sandbox, op: Operation, version: 1 | 2): Json {
  const amounts = {
    gross: { amount: op.amount, currency: op.currency },
    net: { amount: op.settledAmount ?? op.amount, currency: op.currency },
  };
  const common: Json = {
    id: op.id,
    status: op.status,
    created_at: op.created_at,
    ...(op.finished_at ? { finished_at: op.finished_at } : {}),
    ...(op.customer !== undefined ? { customer: op.customer } : {}),
    amount_details: { amount: op.amount, currency: op.currency },
    amounts,
    ...(op.participant_details ? { participant_details: op.participant_details } : {}),
    ...(op.metadata !== undefined ? { metadata: op.metadata } : {}),
    ...(op.transaction_info ? { transaction_info: op.transaction_info } : {}),
    ...(op.error ? { error: op.error } : {}),
    ...(op.extra ?? {}),
  };
  if (op.kind === 'payout') {
    let fiscal = op.fiscalization_details ? clone(op.fiscalization_details) : undefined;
    if (fiscal && op.receipt) {
      const pit = isObject(fiscal.professional_income_taxpayer) ? fiscal.professional_income_taxpayer : {};
      fiscal = { ...fiscal, professional_income_taxpayer: { ...pit, receipt: op.receipt } };
    }
    return {
      ...common,
      [version === 2 ? 'payout_details' : 'payment_method']: maskMethod(op.method),
      ...(fiscal ? { fiscalization_details: fiscal } : {}),
      paymentMetadata: {},
      ...(op.refunds.length ? { refunds: op.refunds.map((r) => refundView(sb, r)) } : {}),
    };
  }
  const token = op.recurrentToken ? sb.state.tokens[op.recurrentToken] : undefined;
  return {
    ...common,
    payment_details: maskMethod(op.method),
    ...(op.payment_options ? { payment_options: op.payment_options } : {}),
    ...(token ? { recurrent: tokenView(token) } : {}),
    ...(op.customer_interaction && op.awaiting === 'action'
      ? { customer_interaction: op.customer_interaction }
      : {}),
    refunds: op.refunds.map((r) => refundView(sb, r)),
  };
}

export function tokenView(t: {
  token: string;
  created_at: string;
  finished_at: string;
  is_active: boolean;
}): Json {
  return {
    token: t.token,
    created_at: t.created_at,
    finished_at: t.finished_at,
    is_active: t.is_active,
    type: 'recurrent_token',
  };
}

export function sessionView(sb: Sandbox, s: Session, version: 1 | 2 = s.apiVersion): Json {
  const payouts = s.operations.filter((o) => o.kind === 'payout').map((o) => operationView(sb, o, version));
  const payments = s.operations.filter((o) => o.kind === 'payment').map((o) => operationView(sb, o, version));
  return {
    id: s.id,
    status: s.status,
    created_at: s.created_at,
    updated_at: s.updated_at,
    ...(s.next_action ? { next_action: s.next_action } : {}),
    [version === 2 ? 'payout_list' : 'payments']: payouts,
    [version === 2 ? 'payment_list' : 'acquiring_payments']: payments,
    ...(s.actions ? { actions: s.actions } : {}),
    ...(s.error ? { error: s.error } : {}),
    ...(s.metadata !== undefined ? { metadata: s.metadata } : {}),
  };
}
