import { type Ctx, type Route, versions } from '../http/types';
import type { Json, Session } from '../state/types';
import { getPath } from '../util';
import { Checker } from '../validate';
import { buildOperation, newSession, ok, requireWalletActive, validateMethod } from './common';
import { mergedParams, requireSessionId, startPayout, validateCustomer } from './payouts';

function validatePayment(
  ctx: Ctx,
  p: Json,
): { c: Checker; card?: string; amt?: { amount: number; currency: string } } {
  const c = new Checker(p);
  c.object('payment_details', true);
  const sel = validateMethod(c, 'payment_details', 'payment');
  const amt = c.amountDetails('amount_details', true);
  validateCustomer(c, true);
  if (c.object('payment_options')) {
    c.url('payment_options.return_url');
    const r = c.get('payment_options.recurrent');
    if (r !== undefined && typeof r !== 'boolean') c.add('payment_options.recurrent', 'must be a boolean');
  }
  let card = sel.card;
  if (getPath(p, 'payment_details.type') === 'recurrent') {
    const t = ctx.sb.state.tokens[String(getPath(p, 'payment_details.recurrent.token'))];
    if (!t || t.project !== ctx.project) c.add('payment_details.recurrent.token', 'token not found');
    else if (!t.is_active) c.add('payment_details.recurrent.token', 'token is disabled');
    else card = t.cardNumber;
  }
  const wallet = c.get('participant_details.recipient.wallet_id');
  if (wallet !== undefined) {
    const sender = c.string('participant_details.sender.full_name', { required: true });
    const recipient = c.string('participant_details.recipient.full_name', { required: true });
    if (sender && recipient && sender !== recipient)
      c.add(
        'participant_details.recipient.full_name',
        'must equal participant_details.sender.full_name for a wallet top-up',
      );
    if (typeof wallet === 'string')
      requireWalletActive(ctx, wallet, 'participant_details.recipient.wallet_id');
  }
  return { c, card, amt };
}

function startPayment(ctx: Ctx, target: Session | (() => Session), p: Json): Json {
  const { c, card, amt } = validatePayment(ctx, p);
  c.check();
  const op = buildOperation(ctx, 'payment', 'plain', p, p.payment_details as Json, amt!, { card });
  const s = typeof target === 'function' ? target() : target;
  ctx.engine.start(s, op);
  return ok(ctx, s);
}

const post = (paths: string[], handler: (ctx: Ctx) => unknown): Route[] =>
  paths.map((path) => ({ method: 'POST', path, area: 'api', idempotent: true, handler }));

export const paymentRoutes: Route[] = [
  ...post(versions([1, 2], 'session/init/payment'), (ctx) => {
    return startPayment(ctx, () => newSession(ctx, ctx.body), ctx.body);
  }),
  ...post(versions([1], 'session/start/payment'), (ctx) => {
    const s = requireSessionId(ctx);
    return startPayment(ctx, s, mergedParams(s, ctx.body));
  }),
  ...post(versions([1], 'session/init/payment/sync'), (ctx) => {
    const c = new Checker(ctx.body);
    c.oneOf('payment_details.type', ['card']);
    c.oneOf('payment_details.card.type', ['bank_card']);
    const card = c.card('payment_details.card.bank_card.number');
    validateMethod(c, 'payment_details', 'payment');
    const amt = c.amountDetails('amount_details', true);
    c.string('customer.reference', { required: true, max: 128 });
    c.url('payment_options.return_url', true);
    c.check();
    const op = buildOperation(ctx, 'payment', 'plain', ctx.body, ctx.body.payment_details as Json, amt!, {
      card,
    });
    const s = newSession(ctx, ctx.body);
    s.operations.push(op);
    ctx.sb.state.opIndex[op.id] = s.id;
    s.status = 'in_progress';
    ctx.engine.finish(s, op, false); // result in the answer; no webhooks
    return ok(ctx, s);
  }),
  ...post(versions([1], 'session/multi/init'), (ctx) => {
    const c = new Checker(ctx.body);
    const pays = c.get('payment_details_multi');
    if (!Array.isArray(pays) || pays.length === 0)
      c.add('payment_details_multi', 'must be a non-empty array');
    else pays.forEach((_, i) => validateMethod(c, `payment_details_multi.${i}`, 'payment'));
    const outs = c.get('payout_details_multi');
    if (outs !== undefined && !Array.isArray(outs)) c.add('payout_details_multi', 'must be an array');
    const amt = c.amountDetails('amount_details', true, undefined);
    if (amt?.currency === 'rub') c.add('amount_details.currency', 'must be the payout currency, not rub');
    c.amount('amounts.source.amount');
    c.currency('amounts.source.currency', true, ['rub']);
    for (const r of ['rate', 'provider_rate']) {
      const v = c.get(`amounts.${r}.rate`);
      if (!(typeof v === 'string' ? /^\d+\.\d{4}$/.test(v) : typeof v === 'number' && v > 0))
        c.add(`amounts.${r}.rate`, 'must be a decimal with 4 digits');
      c.currency(`amounts.${r}.from_currency`, true, ['rub']);
      c.currency(`amounts.${r}.to_currency`, true);
    }
    c.object('participant_details', true);
    c.string('payment_metadata.provider_tx_id', { required: true });
    c.check();
    const p = ctx.body;
    const method = (
      Array.isArray(outs) && outs[0]
        ? outs[0]
        : { type: 'internal_transfer', internal_transfer: { type: 'transfer_from_nominal_account' } }
    ) as Json;
    const field = ctx.version === 2 ? 'payout_details' : 'payment_method';
    let s: Session | undefined;
    const res = startPayout(ctx, () => (s = newSession(ctx, p)), { ...p, [field]: method }, 'multi', false);
    const op = s!.operations.at(-1)!;
    op.extra = { amounts: p.amounts, payment_metadata: p.payment_metadata };
    return res;
  }),
];
