import { ApiError } from '../http/errors';
import type { Ctx, Route } from '../http/types';
import type { Wallet } from '../state/types';
import { Checker } from '../validate';

/** Wallet methods: no version prefix, {status, data, error} envelope (invalid_request becomes validation_error). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DMY = /^(\d{2})\.(\d{2})\.(\d{4})$/;

function parseDmy(v: string): number | undefined {
  const m = DMY.exec(v);
  if (!m) return undefined;
  const t = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
  const d = new Date(t);
  return d.getUTCDate() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 ? t : undefined;
}

function ageYears(birth: number, now: number): number {
  const b = new Date(birth);
  const n = new Date(now);
  let age = n.getUTCFullYear() - b.getUTCFullYear();
  if (
    n.getUTCMonth() < b.getUTCMonth() ||
    (n.getUTCMonth() === b.getUTCMonth() && n.getUTCDate() < b.getUTCDate())
  )
    age--;
  return age;
}

function checkPerson(c: Checker, ctx: Ctx, prefix: string, lastName: string): void {
  c.string(`${prefix}first_name`, { required: true, max: 100 });
  c.string(`${prefix}${lastName}`, { required: true, max: 100 });
  const b = c.string(`${prefix}birthday`, { required: true, pattern: DMY, rule: 'must be DD.MM.YYYY' });
  if (b) {
    const t = parseDmy(b);
    if (t === undefined) c.add(`${prefix}birthday`, 'invalid date');
    else if (ageYears(t, ctx.sb.now()) < 18)
      c.add(`${prefix}birthday`, 'the person must be over 18 years old');
  }
  c.string(`${prefix}birthplace`, { required: true });
  const cz = c.string(`${prefix}citizenship`, {
    required: true,
    pattern: /^[A-Z]{2}$/,
    rule: 'must be ISO 3166-1 alpha-2',
  });
  if (cz && cz !== 'RU')
    c.add(
      `${prefix}citizenship`,
      'simplified identification only for citizens of the Russian Federation (RU)',
    );
}

function checkPassport(c: Checker, p: string): void {
  c.string(`${p}series`, { required: true, pattern: /^\d{4}$/, rule: 'must be 4 digits' });
  c.string(`${p}number`, { required: true, pattern: /^\d{6}$/, rule: 'must be 6 digits' });
  c.string(`${p}issuer`, { required: true });
  c.string(`${p}issuer_date`, { required: true, pattern: DMY, rule: 'must be DD.MM.YYYY' });
  c.string(`${p}issuer_code`, {
    required: true,
    pattern: /^\d{3}-?\d{3}$/,
    rule: 'must be 6 digits (NNN-NNN)',
  });
}

function requireMask(ctx: Ctx): void {
  if (!ctx.sb.projects.get(ctx.project)?.wallets)
    throw new ApiError(
      400,
      'wallet_account_number_not_found',
      'wallet account-number mask not configured for the project',
    );
}

function create(ctx: Ctx, type: Wallet['type'], person: Record<string, unknown>, inn?: string): unknown {
  const sb = ctx.sb;
  const phone = String(ctx.body.phone_number);
  const dup = Object.values(sb.state.wallets).find(
    (w) =>
      w.project === ctx.project &&
      w.status === 'active' &&
      (w.phone === phone || (inn !== undefined && w.inn === inn)),
  );
  if (dup)
    throw new ApiError(409, 'wallet_already_exists', 'one person cannot open several wallets in one project');
  const w: Wallet = {
    id: sb.nextId('wlt'),
    project: ctx.project,
    type,
    status: 'active',
    phone,
    email: String(ctx.body.email),
    inn,
    person,
    balance: 0,
    createdAtMs: sb.now(),
  };
  sb.state.wallets[w.id] = w;
  sb.touch();
  return {
    status: 'ok',
    data: { request_id: sb.nextId('req'), description: 'wallet creation queued', wallet_id: w.id },
    error: null,
  };
}

function wallet(ctx: Ctx, closedIsError: boolean): Wallet {
  const w = ctx.sb.state.wallets[ctx.params.id ?? ''];
  if (!w || w.project !== ctx.project) throw new ApiError(404, 'wallet_not_found', 'active wallet not found');
  if (w.status === 'closed') {
    if (closedIsError) throw new ApiError(409, 'wallet_closed_found', 'the wallet is closed');
    throw new ApiError(404, 'wallet_not_found', 'active wallet not found');
  }
  return w;
}

const route = (method: 'GET' | 'POST', path: string, handler: (ctx: Ctx) => unknown): Route => ({
  method,
  path,
  area: 'wallet',
  idempotent: method === 'POST',
  handler,
});

export const walletRoutes: Route[] = [
  route('POST', '/wallet/create/anonymous', (ctx) => {
    requireMask(ctx);
    const c = new Checker(ctx.body);
    c.string('phone_number', { required: true, pattern: /^\d{11}$/, rule: 'must be 11 digits without plus' });
    c.string('email', { required: true, pattern: EMAIL, rule: 'must be a valid email address' });
    c.check();
    return create(ctx, 'anonymous', {});
  }),
  route('POST', '/wallet/create/simplified', (ctx) => {
    requireMask(ctx);
    const c = new Checker(ctx.body);
    c.oneOf('residence_type', ['FL_RESIDENT']);
    checkPerson(c, ctx, '', 'last_name');
    const inn = c.inn12('inn');
    c.string('phone_number', { required: true, pattern: /^\d{11}$/, rule: 'must be 11 digits without plus' });
    c.string('email', { required: true, pattern: EMAIL, rule: 'must be a valid email address' });
    const docs = c.get('documents');
    if (!Array.isArray(docs) || docs.length === 0) c.add('documents', 'must be a non-empty array');
    else
      docs.forEach((_, i) => {
        c.oneOf(`documents.${i}.type`, ['PASSPORT_RF']);
        checkPassport(c, `documents.${i}.`);
      });
    c.check();
    return create(ctx, 'simplified', { first_name: ctx.body.first_name, last_name: ctx.body.last_name }, inn);
  }),
  route('POST', '/wallet/:id/identification/up_to_simplified', (ctx) => {
    const w = wallet(ctx, false);
    const c = new Checker(ctx.body);
    const inn = c.inn12('inn');
    if (c.object('personal_info', true)) checkPerson(c, ctx, 'personal_info.', 'last_name');
    if (c.object('passport', true)) checkPassport(c, 'passport.');
    c.check();
    if (w.type === 'simplified') throw new ApiError(409, 'validation_error', 'wallet is already simplified');
    const other = Object.values(ctx.sb.state.wallets).find(
      (x) => x.project === ctx.project && x.status === 'active' && x.inn === inn && x.id !== w.id,
    );
    if (other)
      throw new ApiError(
        409,
        'wallet_already_exists',
        'one person cannot open several wallets in one project',
      );
    w.type = 'simplified';
    w.inn = inn;
    ctx.sb.touch();
    return {
      status: 'ok',
      data: { request_id: ctx.sb.nextId('req'), description: 'identification queued' },
      error: null,
    };
  }),
  route('GET', '/wallet/:id/balance', (ctx) => {
    const w = wallet(ctx, true);
    return { status: 'ok', data: { wallet_id: w.id, balance: w.balance, currency: 'rub' }, error: null };
  }),
  route('POST', '/wallet/:id/close', (ctx) => {
    const w = wallet(ctx, false);
    if (w.balance !== 0)
      throw new ApiError(409, 'wallet_not_nullable_balance_error', 'wallet balance must be zero to close it');
    w.status = 'closed';
    ctx.sb.touch();
    return {
      status: 'ok',
      data: { request_id: ctx.sb.nextId('req'), description: 'wallet closing queued' },
      error: null,
    };
  }),
];
