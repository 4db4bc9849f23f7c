import { ApiError, internal } from '../http/errors';
import type { Ctx } from '../http/types';
import { sessionView } from '../serialize';
import type { Json, Operation, Session } from '../state/types';
import { outcomeFor, type Outcome, TEST_CARDS } from '../test-values';
import { canonicalJson, clone, getPath, isObject, sha256 } from '../util';
import type { Checker } from '../validate';
import { FPS_BANKS } from '../fps-banks';
import { DESCRIPTION_MAX, FPS_DESCRIPTION_MAX, isAccountNumber } from '../../domain';

export const paymentMethodField = (version: 1 | 2): string =>
  version === 2 ? 'payout_details' : 'payment_method';

export interface Selectors {
  card?: string;
  phone?: string;
}

/** Checks a payment-method block (payout side: payment_method/payout_details; payment side: payment_details). */
export function validateMethod(c: Checker, path: string, side: 'payout' | 'payment'): Selectors {
  const block = c.object(path);
  if (!block) return {};
  const types =
    side === 'payout'
      ? ['card', 'bank_account', 'tax', 'internal_transfer']
      : ['card', 'faster_payment_system', 'internal_transfer', 'recurrent'];
  const type = c.oneOf(`${path}.type`, types);
  const sel: Selectors = {};
  if (type === 'card') {
    const kind = c.oneOf(`${path}.card.type`, ['bank_card', 'encrypted_card']);
    if (kind === 'bank_card') {
      sel.card = c.card(`${path}.card.bank_card.number`);
      if (side === 'payment') {
        c.string(`${path}.card.bank_card.expiration_month`, {
          required: true,
          pattern: /^(0[1-9]|1[0-2])$/,
          rule: 'must be MM',
        });
        c.string(`${path}.card.bank_card.expiration_year`, {
          required: true,
          pattern: /^\d{2}$/,
          rule: 'must be YY',
        });
        c.string(`${path}.card.bank_card.security_code`, {
          required: true,
          pattern: /^\d{3,4}$/,
          rule: 'must be 3 or 4 digits',
        });
      }
    } else if (kind === 'encrypted_card')
      c.string(`${path}.card.encrypted_card.number_hash`, { required: true });
  } else if (type === 'bank_account') {
    const st = c.oneOf(`${path}.bank_account.system_type`, [
      'ru',
      'faster_payment_system',
      'faster_payment_system_verification',
    ]);
    const sub = `${path}.bank_account.${st}`;
    if (st === 'ru') {
      c.object(sub, true);
      c.string(`${sub}.bik`, {
        required: true,
        pattern: /^04\d{7}$/,
        rule: 'must be 9 digits starting with 04',
      });
      c.string(`${sub}.account`, { required: true, valid: isAccountNumber, rule: 'must be 20 digits' });
      c.string(`${sub}.full_name`, { required: true, max: 255 });
      c.string(`${sub}.description`, { max: DESCRIPTION_MAX });
      c.inn(`${sub}.inn`);
      c.string(`${sub}.kpp`, { pattern: /^\d{9}$/, rule: 'must be 9 digits' });
    } else if (st) {
      c.object(sub, true);
      sel.phone = c.phone(`${sub}.phone`);
      const bank = c.string(`${sub}.bank_id`, { required: true });
      if (bank && !FPS_BANKS.some((b) => b.id === bank))
        c.add(`${sub}.bank_id`, 'unknown FPS bank (see fps/banks)');
      c.string(`${sub}.description`, { max: FPS_DESCRIPTION_MAX });
    }
  } else if (type === 'faster_payment_system') {
    sel.phone = c.phone(`${path}.faster_payment_system.phone`, false);
    const bank = c.string(`${path}.faster_payment_system.bank_id`);
    if (bank && !FPS_BANKS.some((b) => b.id === bank))
      c.add(`${path}.faster_payment_system.bank_id`, 'unknown FPS bank (see fps/banks)');
    c.string(`${path}.faster_payment_system.description`, { max: FPS_DESCRIPTION_MAX });
  } else if (type === 'internal_transfer') {
    c.oneOf(`${path}.internal_transfer.type`, ['transfer_from_nominal_account']);
  } else if (type === 'tax') {
    c.oneOf(`${path}.tax.type`, ['tax_short']);
  } else if (type === 'recurrent') {
    c.string(`${path}.recurrent.token`, { required: true });
  }
  return sel;
}

/** Checks fiscalization_details; `complete` demands every field a receipt needs and services summing to the amount. */
export function validateFiscal(
  c: Checker,
  amount: number | undefined,
  complete: boolean,
): string | undefined {
  const base = 'fiscalization_details.professional_income_taxpayer';
  if (!c.object('fiscalization_details', complete)) return undefined;
  if (!c.object(base, true)) return undefined;
  const inn = c.inn12(`${base}.tax_reference`);
  c.oneOf(`${base}.payer_type`, ['legal', 'foreign'], complete);
  if (complete) {
    c.string(`${base}.payer_tax_number`, { required: true });
    c.string(`${base}.payer_name`, { required: true });
  }
  const services = c.get(`${base}.services`);
  if (services === undefined && !complete) return inn;
  if (!Array.isArray(services) || services.length === 0) {
    c.add(`${base}.services`, 'must be a non-empty array');
    return inn;
  }
  let total = 0;
  services.forEach((_, i) => {
    c.string(`${base}.services.${i}.name`, { required: true, max: 256 });
    const a = c.amountDetails(`${base}.services.${i}.amount_details`, true);
    const q = c.get(`${base}.services.${i}.quantity`);
    if (typeof q !== 'number' || !Number.isInteger(q) || q <= 0)
      c.add(`${base}.services.${i}.quantity`, 'must be an integer greater than 0');
    else if (a) total += a.amount * q;
  });
  if (amount !== undefined && total > 0 && total !== amount)
    c.add(`${base}.services`, `total ${total} must equal amount_details.amount ${amount}`);
  return inn;
}

/** Array access through getPath uses string indexes; Checker paths like services.0.name work with it. */
export function newSession(ctx: Ctx, params: Json, nominal = false): Session {
  const sb = ctx.sb;
  const now = sb.now();
  const ts = sb.ts(now);
  const s: Session = {
    id: sb.nextId('ps'),
    project: ctx.project,
    apiVersion: ctx.version,
    status: 'created',
    createdAtMs: now,
    created_at: ts,
    updated_at: ts,
    nominal,
    params,
    operations: [],
    metadata: params.metadata,
  };
  sb.state.sessions[s.id] = s;
  sb.touch();
  return s;
}

/** Applies the forced internal_error outcomes: nothing is created, the answer is HTTP 500. */
export function enforceRequestTimeOutcome(ctx: Ctx, outcome: Outcome): void {
  if (outcome === 'internal_error') throw internal('internal error (forced by test value), retry later');
  if (outcome === 'internal_error_once') {
    const key = `${ctx.project}:${ctx.idemKey ?? sha256(ctx.path + canonicalJson(ctx.body))}`;
    if (!ctx.sb.state.onceFailures[key]) {
      ctx.sb.state.onceFailures[key] = true;
      ctx.sb.touch();
      throw internal('internal error (forced once by test value), retry later');
    }
  }
}

export function buildOperation(
  ctx: Ctx,
  kind: 'payout' | 'payment',
  flavor: Operation['flavor'],
  p: Json,
  method: Json,
  amount: { amount: number; currency: string },
  sel: Selectors & { taxReference?: string },
): Operation {
  const sb = ctx.sb;
  const outcome = outcomeFor({ card: sel.card, amount: amount.amount, taxReference: sel.taxReference });
  enforceRequestTimeOutcome(ctx, outcome);
  const now = sb.now();
  const wallet = getPath(
    p,
    kind === 'payout' ? 'participant_details.sender.wallet_id' : 'participant_details.recipient.wallet_id',
  );
  return {
    id: sb.nextId(kind === 'payout' ? 'po' : 'pm'),
    kind,
    flavor: typeof wallet === 'string' ? (kind === 'payout' ? 'withdrawal' : 'topup') : flavor,
    status: 'in_progress',
    createdAtMs: now,
    created_at: sb.ts(now),
    method: clone(method),
    amount: amount.amount,
    currency: amount.currency,
    customer: p.customer,
    participant_details: isObject(p.participant_details) ? clone(p.participant_details) : undefined,
    fiscalization_details: isObject(p.fiscalization_details) ? clone(p.fiscalization_details) : undefined,
    payment_options: isObject(p.payment_options) ? clone(p.payment_options) : undefined,
    metadata: p.metadata,
    outcome,
    twoStage:
      kind === 'payment' &&
      (sel.card === TEST_CARDS.TWO_STAGE || getPath(p, 'payment_options.two_stage') === true),
    refunds: [],
    idempotencyKey: ctx.idemKey,
    walletId: typeof wallet === 'string' ? wallet : undefined,
  };
}

export function ok(ctx: Ctx, s: Session): Json {
  return { status: 'ok', session: sessionView(ctx.sb, s, ctx.version) };
}

export function verificationStart(ctx: Ctx): Json {
  const field = paymentMethodField(ctx.version);
  const method = ctx.body[field] as Json;
  const op = buildOperation(
    ctx,
    'payout',
    'verification',
    ctx.body,
    method,
    { amount: 0, currency: 'rub' },
    {},
  );
  const s = newSession(ctx, ctx.body);
  op.outcome = 'succeed';
  ctx.engine.start(s, op);
  return ok(ctx, s);
}

export function requireWalletActive(ctx: Ctx, walletId: string, path: string): void {
  const w = ctx.sb.state.wallets[walletId];
  if (!w || w.project !== ctx.project || w.status !== 'active')
    throw new ApiError(400, 'invalid_request', `${path}: active wallet not found`);
}
