import { LIMITS } from '../core';
import { ApiError } from '../http/errors';
import { type Ctx, type Route, versions } from '../http/types';
import type { NpdRequest } from '../state/types';
import { npdProfile, TEST_INNS } from '../test-values';
import { Checker } from '../validate';
import { isLinked, LINK_REQUEST_TTL_MS, linkStatus } from '../links';

function newRequest(ctx: Ctx, origin: NpdRequest['origin'], input: Record<string, unknown>): NpdRequest {
  const r: NpdRequest = {
    id: ctx.sb.nextId('req'),
    project: ctx.project,
    origin,
    createdAtMs: ctx.sb.now(),
    input,
  };
  ctx.sb.state.npdRequests[r.id] = r;
  ctx.sb.touch();
  return r;
}

function result(ctx: Ctx, r: NpdRequest): Record<string, unknown> {
  const inn = String(r.input.tax_reference ?? '');
  const p = npdProfile(inn);
  if (p.pendingForever || ctx.sb.now() - r.createdAtMs < ctx.sb.timings.npdPendingMs)
    return { status: 'pending', request_id: r.id };
  switch (r.origin) {
    case 'check':
      return {
        status: 'ok',
        request_id: r.id,
        is_professional_income_taxpayer: p.isTaxpayer,
        is_linked: p.isTaxpayer && isLinked(ctx.sb, inn),
      };
    case 'account_status': {
      const debt = inn === TEST_INNS.WITH_DEBT;
      return {
        status: 'ok',
        request_id: r.id,
        bonus_amount: debt ? '0.00' : '10000.00',
        unpaid_amount: debt ? '1500.00' : '0.00',
        debt_amount: debt ? '500.00' : '0.00',
      };
    }
    case 'check_personal_info': {
      const bad = inn === TEST_INNS.PERSONAL_INFO_MISMATCH;
      return {
        status: 'ok',
        request_id: r.id,
        success: !bad,
        violations: bad ? ['second_name', 'phone'] : [],
      };
    }
    case 'onboarding':
      return {
        status: 'ok',
        request_id: r.id,
        link_status: linkStatus(ctx.sb, r),
        ...(r.expiresAtMs !== undefined ? { expires_at: ctx.sb.ts(r.expiresAtMs) } : {}),
      };
    default:
      return { status: 'ok', request_id: r.id };
  }
}

const post = (paths: string[], handler: (ctx: Ctx) => unknown, idempotent = true): Route[] =>
  paths.map((path) => ({ method: 'POST', path, area: 'api', idempotent, handler }));

export const npdRoutes: Route[] = [
  ...post(versions([1], 'npd/check'), (ctx) => {
    const c = new Checker(ctx.body);
    const inn = c.inn12('tax_reference');
    c.check();
    const slot = `${ctx.project}:${inn}`;
    const last = ctx.sb.state.npdLastCheck[slot];
    const now = ctx.sb.now();
    if (last !== undefined && now - last < LIMITS.npdCheckIntervalMs) {
      const wait = Math.ceil((LIMITS.npdCheckIntervalMs - (now - last)) / 1000);
      throw new ApiError(
        429,
        'too_many_requests',
        `tax_reference: checked less than 30 seconds ago, retry in ${wait} s`,
      );
    }
    ctx.sb.state.npdLastCheck[slot] = now;
    return { status: 'ok', request_id: newRequest(ctx, 'check', { tax_reference: inn }).id };
  }),
  ...post(versions([1], 'npd/taxpayer/account_status'), (ctx) => {
    const c = new Checker(ctx.body);
    if (Array.isArray(ctx.body.tax_reference)) c.add('tax_reference', 'one tax number per request');
    else c.inn12('tax_reference');
    c.check();
    return {
      status: 'ok',
      request_id: newRequest(ctx, 'account_status', { tax_reference: ctx.body.tax_reference }).id,
    };
  }),
  ...post(versions([1], 'npd/taxpayer/check_personal_info'), (ctx) => {
    const c = new Checker(ctx.body);
    for (const f of ['first_name', 'second_name', 'patronymic']) c.string(f, { required: true, max: 128 });
    c.inn12('tax_reference');
    c.phone('phone');
    c.check();
    return { status: 'ok', request_id: newRequest(ctx, 'check_personal_info', { ...ctx.body }).id };
  }),
  ...post(
    versions([1], 'npd/request/status'),
    (ctx) => {
      const c = new Checker(ctx.body);
      c.string('request_id', { required: true });
      c.check();
      const r = ctx.sb.state.npdRequests[String(ctx.body.request_id)];
      if (!r || r.project !== ctx.project)
        throw new ApiError(404, 'request_not_found', 'request_id: request not found');
      return result(ctx, r);
    },
    false,
  ),
  // Asks the person to link the partner (D22): whom (tax_reference), where they come back (return_url);
  // answers the request's id, the address to pass on to the person, and when the request lapses.
  ...post(versions([1], 'self_employed/onboarding/create'), (ctx) => {
    const c = new Checker(ctx.body);
    const inn = c.inn12('tax_reference');
    c.url('return_url');
    c.check();
    const r = newRequest(ctx, 'onboarding', { tax_reference: inn, return_url: ctx.body.return_url });
    r.expiresAtMs = r.createdAtMs + LINK_REQUEST_TTL_MS;
    return {
      status: 'ok',
      request_id: r.id,
      url: `${ctx.sb.baseUrl}/__sandbox/onboarding/${r.id}`,
      expires_at: ctx.sb.ts(r.expiresAtMs),
    };
  }),
];
