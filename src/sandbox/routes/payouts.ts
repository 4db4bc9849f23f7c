import { type Ctx, type Route, versions } from '../http/types';
import type { Json, Session } from '../state/types';
import { Checker } from '../validate';
import { FPS_DESCRIPTION_MAX } from '../../domain';
import {
  buildOperation,
  newSession,
  ok,
  paymentMethodField,
  requireWalletActive,
  validateFiscal,
  validateMethod,
} from './common';

export function validateCustomer(c: Checker, required: boolean): void {
  if (!c.object('customer', required)) return;
  c.string('customer.reference', { required: true, max: 128 });
  const contacts = c.get('customer.contacts');
  if (contacts !== undefined && !Array.isArray(contacts)) c.add('customer.contacts', 'must be an array');
}

function validateParticipants(c: Checker, required: boolean): void {
  if (!c.object('participant_details', required)) return;
  for (const side of ['sender', 'recipient']) {
    if (!c.object(`participant_details.${side}`)) continue;
    c.string(`participant_details.${side}.citizenship_country_iso3`, {
      pattern: /^[A-Z]{3}$/,
      rule: 'must be a three-letter country code',
    });
    c.string(`participant_details.${side}.date_of_birth`, {
      pattern: /^\d{4}-\d{2}-\d{2}$/,
      rule: 'must be YYYY-MM-DD',
    });
  }
}

/** The checks session/create runs on whatever is given (everything optional). */
export function validateCreate(ctx: Ctx): void {
  const c = new Checker(ctx.body);
  const field = paymentMethodField(ctx.version);
  validateMethod(c, field, 'payout');
  validateMethod(c, 'payment_details', 'payment');
  const amt = c.amountDetails('amount_details', false, undefined);
  validateFiscal(c, amt?.amount, false);
  validateParticipants(c, false);
  validateCustomer(c, false);
  c.check();
}

/**
 * What a payout must carry for its method, whatever the request that starts it: the spec's
 * Withdrawal rules (card number; ru bik, account, full_name, description; FPS phone, bank_id,
 * description up to 140 characters). The general block check covers formats; this list is the
 * spec's, kept here in one piece so no method can lose a required field unnoticed.
 */
const PAYOUT_REQUIRED: Record<string, { when: [string, string]; fields: string[] }> = {
  card: { when: ['card.type', 'bank_card'], fields: ['card.bank_card.number'] },
  ru: {
    when: ['bank_account.system_type', 'ru'],
    fields: ['bik', 'account', 'full_name', 'description'].map((f) => `bank_account.ru.${f}`),
  },
  fps: {
    when: ['bank_account.system_type', 'faster_payment_system'],
    fields: ['phone', 'bank_id', 'description'].map((f) => `bank_account.faster_payment_system.${f}`),
  },
};

function validatePayoutRequiredFields(c: Checker, field: string): void {
  if (!c.object(field)) return;
  for (const { when, fields } of Object.values(PAYOUT_REQUIRED)) {
    if (c.get(`${field}.${when[0]}`) !== when[1]) continue;
    for (const f of fields) c.required(`${field}.${f}`);
  }
  if (c.get(`${field}.bank_account.system_type`) === 'faster_payment_system')
    c.string(`${field}.bank_account.faster_payment_system.description`, { max: FPS_DESCRIPTION_MAX });
}

export type PayoutFlavor = 'plain' | 'nominal' | 'multi';

/** Starts a payout in session s with the merged parameters (create params overridden by the start request). */
export function startPayout(
  ctx: Ctx,
  target: Session | (() => Session),
  p: Json,
  flavor: PayoutFlavor,
  fiscalComplete: boolean,
): Json {
  const c = new Checker(p);
  const field = paymentMethodField(ctx.version);
  c.object(field, true);
  const sel = validateMethod(c, field, 'payout');
  validatePayoutRequiredFields(c, field);
  const amt = c.amountDetails('amount_details', true, flavor === 'multi' ? undefined : ['rub']);
  validateParticipants(c, flavor !== 'plain');
  const taxReference = validateFiscal(c, amt?.amount, fiscalComplete);
  validateCustomer(c, false);
  if (flavor === 'nominal') {
    c.string('participant_details.sender.account', {
      required: true,
      pattern: /^\d{20}$/,
      rule: 'must be 20 digits',
    });
    c.string('participant_details.recipient.beneficiary_id', { required: true });
  }
  const wallet = c.get('participant_details.sender.wallet_id');
  if (wallet !== undefined) {
    c.string('participant_details.sender.full_name', { required: true });
    c.string('participant_details.recipient.full_name', { required: true });
    if (typeof wallet === 'string') requireWalletActive(ctx, wallet, 'participant_details.sender.wallet_id');
  }
  c.check();
  const op = buildOperation(ctx, 'payout', flavor, p, p[field] as Json, amt!, { ...sel, taxReference });
  // The session of an init request is created only once the request passed every check.
  const s = typeof target === 'function' ? target() : target;
  ctx.engine.start(s, op);
  return ok(ctx, s);
}

function stripSession(body: Json): Json {
  const { session_id: _drop, ...rest } = body;
  return rest;
}

export function mergedParams(s: Session, body: Json): Json {
  return { ...s.params, ...stripSession(body) };
}

function requireSessionId(ctx: Ctx): Session {
  const c = new Checker(ctx.body);
  c.string('session_id', { required: true });
  c.check();
  return ctx.sb.session(ctx.project, ctx.body.session_id);
}

export { requireSessionId };

const post = (paths: string[], handler: (ctx: Ctx) => unknown, idempotent = true): Route[] =>
  paths.map((path) => ({ method: 'POST', path, area: 'api', idempotent, handler }));

export const payoutRoutes: Route[] = [
  ...post(versions([1, 2], 'session/create'), (ctx) => {
    validateCreate(ctx);
    return ok(ctx, newSession(ctx, ctx.body));
  }),
  ...post(versions([1, 2], 'session/create/nominal'), (ctx) => {
    validateCreate(ctx);
    return ok(ctx, newSession(ctx, ctx.body, true));
  }),
  ...post(versions([1, 2], 'session/multi/create/nominal'), (ctx) => {
    validateCreate(ctx);
    return ok(ctx, newSession(ctx, ctx.body, true));
  }),
  ...post(versions([1], 'session/init/payout'), (ctx) =>
    startPayout(ctx, () => newSession(ctx, ctx.body), ctx.body, 'plain', false),
  ),
  ...post(versions([1], 'session/init/payout/fiscalization'), (ctx) =>
    startPayout(ctx, () => newSession(ctx, ctx.body), ctx.body, 'plain', true),
  ),
  ...post(versions([1, 2], 'session/init/payout/nominal'), (ctx) =>
    startPayout(ctx, () => newSession(ctx, ctx.body, true), ctx.body, 'nominal', false),
  ),
  ...post(versions([1], 'session/start/payout'), (ctx) => {
    const s = requireSessionId(ctx);
    return startPayout(ctx, s, mergedParams(s, ctx.body), s.nominal ? 'nominal' : 'plain', false);
  }),
  ...post(versions([1], 'session/start/payout/fiscalization'), (ctx) => {
    const s = requireSessionId(ctx);
    return startPayout(ctx, s, mergedParams(s, ctx.body), s.nominal ? 'nominal' : 'plain', true);
  }),
  ...post(versions([1], 'session/multi/init/payment/nominal'), (ctx) => {
    const c = new Checker(ctx.body);
    c.object('payment_details', true);
    validateMethod(c, 'payment_details', 'payment');
    validateCustomer(c, true);
    c.object('participant_details', true);
    c.check();
    return startPayout(ctx, () => newSession(ctx, ctx.body, true), ctx.body, 'multi', false);
  }),
  ...post(versions([1], 'session/multi/start/payment/nominal'), (ctx) => {
    const s = requireSessionId(ctx);
    return startPayout(ctx, s, mergedParams(s, ctx.body), 'multi', false);
  }),
  ...post(versions([1], 'alias/ru_vat_lite'), (ctx) => {
    const c = new Checker(ctx.body);
    const type = c.oneOf('period_type', ['month', 'quarter']);
    const num = c.string('period_number', {
      required: true,
      pattern: /^\d{1,2}$/,
      rule: 'must be a number as a string',
    });
    if (num && type && (Number(num) < 1 || Number(num) > (type === 'month' ? 12 : 4)))
      c.add('period_number', `must be 1 to ${type === 'month' ? 12 : 4} for ${type}`);
    const year = c.string('period_year', { required: true, pattern: /^\d{4}$/, rule: 'must be a year' });
    const amount = c.amount('amount');
    c.currency('currency', true, ['rub']);
    c.check();
    const method = {
      type: 'tax',
      tax: { type: 'tax_short', tax_short: { tax_details: { period: { type, number: num, year } } } },
    };
    const params: Json = {
      [paymentMethodField(ctx.version)]: method,
      amount_details: { amount, currency: 'rub' },
    };
    const op = buildOperation(ctx, 'payout', 'tax', params, method, { amount: amount!, currency: 'rub' }, {});
    const s = newSession(ctx, params);
    ctx.engine.start(s, op);
    return ok(ctx, s);
  }),
];
