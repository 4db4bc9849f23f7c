import { ApiError } from '../http/errors';
import { type Ctx, type Route, versions } from '../http/types';
import { tokenView } from '../serialize';
import { Checker } from '../validate';
import { ok } from './common';
import { requireSessionId } from './payouts';

const post = (paths: string[], handler: (ctx: Ctx) => unknown, idempotent = true): Route[] =>
  paths.map((path) => ({ method: 'POST', path, area: 'api', idempotent, handler }));

export const actionRoutes: Route[] = [
  ...post(versions([1, 2], 'session/confirm'), (ctx) => {
    const s = requireSessionId(ctx);
    ctx.engine.confirm(s, ctx.body.confirm_information);
    return ok(ctx, s);
  }),
  ...post(versions([1, 2], 'session/cancel'), (ctx) => {
    const s = requireSessionId(ctx);
    ctx.engine.cancel(s);
    return ok(ctx, s);
  }),
  ...post(versions([1, 2], 'session/capture'), (ctx) => {
    const s = requireSessionId(ctx);
    const c = new Checker(ctx.body);
    const amt = c.amountDetails('amount_details', false);
    c.check();
    ctx.engine.capture(s, amt?.amount);
    return ok(ctx, s);
  }),
  ...post(versions([1], 'session/refund'), (ctx) => {
    const s = requireSessionId(ctx);
    const c = new Checker(ctx.body);
    const amt = c.amountDetails('amount_details', false);
    c.check();
    ctx.engine.refund(s, amt?.amount, ctx.body.metadata, ctx.idemKey);
    return ok(ctx, s);
  }),
  ...post(versions([1, 2], 'session/status'), (ctx) => ok(ctx, requireSessionId(ctx)), false),
  ...post(versions([1], 'recurrent/disable'), (ctx) => {
    const c = new Checker(ctx.body);
    c.object('recurrent', true);
    c.string('recurrent.token', { required: true });
    c.check();
    const t = ctx.sb.state.tokens[String((ctx.body.recurrent as { token: string }).token)];
    if (!t || t.project !== ctx.project)
      throw new ApiError(404, 'token_not_found', 'recurrent.token: token not found');
    t.is_active = false;
    t.finished_at = '2000-01-01T00:00:00.000000Z'; // the bank's quirk: ignore finished_at
    ctx.sb.touch();
    return { status: 'ok', recurrent: tokenView(t) };
  }),
  ...post(
    versions([1], 'token/info'),
    (ctx) => {
      const c = new Checker(ctx.body);
      const type = c.oneOf('type', ['card', 'public_token', 'recurrent_token', 'bank_account_ru']);
      c.object(type ?? 'type', true);
      c.check();
      const sub = ctx.body[type!] as Record<string, unknown>;
      if (type === 'recurrent_token') {
        const t = ctx.sb.state.tokens[String(sub.token)];
        if (!t || t.project !== ctx.project)
          throw new ApiError(404, 'token_not_found', 'recurrent_token.token: token not found');
        return { status: 'ok', info: tokenView(t) };
      }
      if (type === 'card') {
        const hash = (sub.encrypted_card as { number_hash?: string } | undefined)?.number_hash;
        if (!hash)
          throw new ApiError(400, 'invalid_request', 'card.encrypted_card.number_hash: not_blank (required)');
        return {
          status: 'ok',
          info: { number_hash: hash, brand: 'mir', last4: hash.slice(-4).replace(/\D/g, '0'), type: 'card' },
        };
      }
      throw new ApiError(404, 'token_not_found', `${type}.token: token not found`);
    },
    false,
  ),
];
