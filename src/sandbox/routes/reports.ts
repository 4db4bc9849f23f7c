import { ApiError, invalid } from '../http/errors';
import { type Ctx, type Route, versions } from '../http/types';
import { depositAccount } from '../ledger';
import { accountStatement } from '../statement';
import { Checker } from '../validate';

const post = (paths: string[], handler: (ctx: Ctx) => unknown): Route[] =>
  paths.map((path) => ({ method: 'POST', path, area: 'api', idempotent: false, handler }));

export const reportRoutes: Route[] = [
  ...post(versions([1], 'report/account_balance'), (ctx) => {
    const c = new Checker(ctx.body);
    const num = c.string('account_number', {
      required: true,
      pattern: /^\d{20}$/,
      rule: 'must be 20 digits',
    });
    if (num && !/^(40702|40703|40802|40807|40701)/.test(num))
      c.add('account_number', 'must start with 40702, 40703, 40802, 40807 or 40701');
    c.check();
    const acc = ctx.sb.state.accounts[num!];
    if (!acc) throw invalid('account_number: account not found or not owned by the project');
    return {
      status: 'ok',
      account_number: acc.number,
      account_currency: acc.currency,
      balance: { current_balance: acc.balance },
    };
  }),
  ...post(versions([1], 'report/account_statement'), (ctx) => {
    const c = new Checker(ctx.body);
    const num = c.string('account_number', {
      required: true,
      pattern: /^\d{20}$/,
      rule: 'must be 20 digits',
    });
    const from = c.date('date_from');
    const to = c.date('date_to');
    c.check();
    if (from! > to!) throw invalid('date_from: must not be greater than date_to');
    if (from !== to) throw invalid('date_to: must equal date_from (the maximum interval is 1 day)');
    const acc = ctx.sb.state.accounts[num!];
    if (!acc) throw invalid('account_number: account not found or not owned by the project');
    return {
      status: 'ok',
      method: { name: 'account_statement', account_statement: accountStatement(ctx.sb, acc, from!) },
    };
  }),
  ...post(versions([1], 'wallet/balance'), (ctx) => {
    const c = new Checker(ctx.body);
    const when = c.string('request_datetime', { required: true });
    if (when !== undefined && Number.isNaN(Date.parse(when)))
      c.add('request_datetime', 'must be an ISO 8601 date-time');
    c.check();
    const acc = depositAccount(ctx.sb);
    if (!acc) throw new ApiError(500, 'internal_error', 'no deposit account');
    return {
      status: 'ok',
      wallets: [{ id: acc.number, amount_details: { amount: acc.balance, currency: 'rub' } }],
    };
  }),
];
