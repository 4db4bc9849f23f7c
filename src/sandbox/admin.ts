import type { IncomingMessage } from 'node:http';
import type { Sandbox } from './core';
import { validateFaultSettings } from './faults';
import type { Reply } from './http/server';
import { ApiError } from './http/errors';
import { book, depositAccount } from './ledger';
import { answerLinkRequest } from './links';
import type { Engine } from './engine';
import type { AccountTx, ReturnVia } from './state/types';
import { sessionView } from './serialize';
import { validateStatementFaults } from './statement';
import type { WebhookDispatcher } from './webhooks/dispatcher';

/** Inspection and control endpoints under /__admin/ (no signature; off when admin is false). */
export interface AdminDeps {
  sb: Sandbox;
  engine: Engine;
  webhooks: WebhookDispatcher;
  partnerInn: string;
}

const json = (body: unknown, status = 200): Reply => ({ status, body: JSON.stringify(body) });
const bad = (description: string, status = 400): Reply =>
  json({ status: 'error', error: { code: 'invalid_request', description } }, status);

function parse(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const v = JSON.parse(raw.toString('utf8')) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('body must be a JSON object');
  return v as Record<string, unknown>;
}

export function emitNominalTopup(d: AdminDeps, amount: number): Record<string, unknown> {
  const { sb } = d;
  const acc = depositAccount(sb);
  const cp = {
    name: 'LLC Partner Funding',
    account_number: '40702810100000000777',
    bank_code: '044525225',
    inn: '7707083893',
  };
  const tx = book(sb, acc, {
    amount,
    currency: 'RUB',
    type: 'credit',
    purpose: 'Deposit top-up (sandbox admin)',
    counter_party: cp,
  });
  const body = {
    inn: d.partnerInn,
    kpp: '770701001',
    account_number: acc.number,
    account_balance: acc.balance,
    doc_id: tx.id,
    doc_num: tx.id.slice(-6),
    amount,
    currency: 'RUB',
    paymentDate: sb.ts(),
    purpose: 'Deposit top-up',
    contragent_name: cp.name,
    contragent_inn: cp.inn,
    contragent_kpp: '770701001',
    contragent_account_number: cp.account_number,
    contragent_bank_bik: cp.bank_code,
    contragent_bank_name: 'Sandbox Bank JSC',
  };
  d.webhooks.emit('nominal_topup', body, null);
  return body;
}

export async function handleAdmin(
  d: AdminDeps,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  raw: Buffer,
): Promise<Reply> {
  const { sb } = d;
  const method = req.method ?? 'GET';
  let body: Record<string, unknown>;
  try {
    body = parse(raw);
  } catch (e) {
    return bad(`body: ${(e as Error).message}`);
  }
  const route = `${method} ${path.replace(/^\/__admin/, '')}`;
  const sessionMatch = /^GET \/sessions\/([^/]+)$/.exec(route);
  if (sessionMatch) {
    const s = sb.state.sessions[decodeURIComponent(sessionMatch[1]!)];
    if (!s)
      return json(
        { status: 'error', error: { code: 'session_not_found', description: 'session not found' } },
        404,
      );
    return json({ session: sessionView(sb, s, s.apiVersion), internal: s });
  }
  const returnMatch = /^POST \/sessions\/([^/]+)\/return$/.exec(route);
  if (returnMatch) return planReturn(d, decodeURIComponent(returnMatch[1]!), body);
  const linkMatch = /^POST \/onboarding\/([^/]+)$/.exec(route);
  if (linkMatch) return answerLink(d, decodeURIComponent(linkMatch[1]!), body);
  const actionMatch = /^POST \/actions\/([^/]+)$/.exec(route);
  if (actionMatch) {
    const done = d.engine.completeAction(decodeURIComponent(actionMatch[1]!), body.result !== 'fail');
    return done ? json({ status: 'ok' }) : bad('operation is not waiting for a customer action', 409);
  }
  switch (route) {
    case 'GET /bank-public-key':
      return { status: 200, body: sb.bankPublicKeyPem, contentType: 'application/x-pem-file' };
    case 'GET /clock':
      return json({
        now: sb.ts(),
        now_ms: sb.now(),
        offset_ms: sb.state.clockOffsetMs,
        pending_events: sb.clock.pending().length,
      });
    case 'GET /events':
      return json({ events: sb.clock.pending().map((e) => ({ ...e, at: sb.ts(e.at) })) });
    case 'POST /clock/advance': {
      let target: { ms?: number; to?: number };
      if (typeof body.ms === 'number' && Number.isFinite(body.ms) && body.ms >= 0) target = { ms: body.ms };
      else if (typeof body.to === 'string' && !Number.isNaN(Date.parse(body.to)))
        target = { to: Date.parse(body.to) };
      else return bad('give {"ms": <non-negative number>} or {"to": "<ISO 8601>"}');
      if (target.to !== undefined && target.to < sb.now())
        return bad('to: the sandbox clock only moves forward');
      const now = await sb.clock.advance(target);
      return json({ now: sb.ts(now), now_ms: now });
    }
    case 'GET /ledger': {
      const sid = query.get('session_id');
      return json({ entries: sb.state.ledger.filter((e) => !sid || e.session_id === sid) });
    }
    case 'GET /webhooks':
      return json({
        attempts: sb.state.webhookLog,
        deliveries: Object.values(sb.state.deliveries).map(({ body: b, ...rest }) => ({
          ...rest,
          body: JSON.parse(b) as unknown,
        })),
      });
    case 'GET /requests':
      return json({ counts: sb.state.requestCounts });
    case 'GET /accounts':
      return json({
        accounts: Object.values(sb.state.accounts).map(({ transactions, ...a }) => ({
          ...a,
          transactions: transactions.length,
        })),
      });
    case 'POST /reset':
      sb.reset();
      return json({ status: 'ok' });
    case 'POST /webhook-url': {
      if (body.url !== null && typeof body.url !== 'string') return bad('url: string or null');
      if (typeof body.url === 'string') {
        try {
          new URL(body.url);
        } catch {
          return bad('url: must be a valid URL');
        }
      }
      sb.state.webhookUrl = (body.url as string | null) ?? undefined;
      if (typeof body.optional === 'boolean') sb.state.optionalWebhooks = body.optional;
      sb.touch();
      return json({ status: 'ok', url: sb.state.webhookUrl ?? null, optional: sb.state.optionalWebhooks });
    }
    case 'POST /deposit': {
      const acc = depositAccount(sb);
      const { set, add } = body;
      const amount = typeof add === 'number' ? add : typeof set === 'number' ? set - acc.balance : NaN;
      if (!Number.isSafeInteger(amount)) return bad('give {"add": <kopecks>} or {"set": <kopecks>}');
      if (amount > 0) emitNominalTopup(d, amount);
      else if (amount < 0)
        book(sb, acc, {
          amount: -amount,
          currency: 'RUB',
          type: 'debet',
          purpose: 'Deposit adjustment (sandbox admin)',
        });
      return json({ status: 'ok', balance: acc.balance });
    }
    case 'GET /statement-faults':
      return json({ faults: sb.state.statementFaults ?? [] });
    case 'POST /statement-faults':
      try {
        sb.state.statementFaults = validateStatementFaults(body.faults);
        sb.touch();
        return json({ status: 'ok', faults: sb.state.statementFaults });
      } catch (e) {
        return bad((e as Error).message);
      }
    case 'POST /outside-payout':
      return outsidePayout(d, body);
    case 'GET /faults':
      return json(sb.faults.get());
    case 'POST /faults':
      try {
        const seed = typeof body.seed === 'number' ? body.seed : undefined;
        sb.faults.set(validateFaultSettings(body), seed);
        return json({ status: 'ok', ...sb.faults.get() });
      } catch (e) {
        return bad((e as Error).message);
      }
    default:
      return json(
        { status: 'error', error: { code: 'method_not_found', description: `no admin endpoint ${route}` } },
        404,
      );
  }
}

const DAY_MS = 86_400_000;
const RETURN_VIA = ['webhook', 'statement', 'both'];

/**
 * A succeeded payout of any method comes back: now, or `after_days` sandbox days later (a clock event,
 * so `/__admin/clock/advance` brings it), told by `via`: `webhook` (payment_refunded, signed as the
 * bank signs), `statement` (a credit line under the payout's session on that day's statement) or `both`;
 * `keep_kopecks` comes back short by a fee the recipient's bank kept.
 */
function planReturn(d: AdminDeps, sessionId: string, body: Record<string, unknown>): Reply {
  const s = d.sb.state.sessions[sessionId];
  const op = s?.operations.find((o) => o.kind === 'payout');
  if (!s || !op) return bad(`session ${sessionId}: no payout session with this id`, 404);
  if (op.status !== 'succeeded' || op.refunds.some((r) => r.returned))
    return bad(`session ${sessionId}: only a succeeded payout not yet returned can be returned`, 409);
  const days = body.after_days ?? 0;
  if (typeof days !== 'number' || !Number.isFinite(days) || days < 0)
    return bad('after_days: sandbox days from now, 0 or more (fractions allowed)');
  const via = body.via ?? 'both';
  if (typeof via !== 'string' || !RETURN_VIA.includes(via))
    return bad(`via: one of ${RETURN_VIA.join(', ')}`);
  const keep = body.keep_kopecks ?? 0;
  if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0 || keep >= op.amount)
    return bad('keep_kopecks: what the recipient’s bank keeps as its fee, whole kopecks below the amount');
  if (days === 0) {
    d.engine.money.returnPayout(s, op, via as ReturnVia, keep);
    return json({ status: 'ok', at: d.sb.ts(), via });
  }
  const event = d.sb.clock.schedule(days * DAY_MS, 'op.return', { op: op.id, via, keep });
  return json({ status: 'ok', at: d.sb.ts(event.at), via });
}

/**
 * Money that left the deposit account outside payrun (another tool of the same partner, a bank officer):
 * a debit line with a session id payrun never created, and, without one, a line with none.
 */
function outsidePayout(d: AdminDeps, body: Record<string, unknown>): Reply {
  const { amount } = body;
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) return bad('amount: kopecks, more than 0');
  const withSession = body.session !== false;
  const sessionId = withSession ? d.sb.nextId('ps') : undefined;
  const cp = body.counter_party as AccountTx['counter_party'] | undefined;
  const tx = book(d.sb, depositAccount(d.sb), {
    amount: amount as number,
    currency: 'RUB',
    type: 'debet',
    purpose: typeof body.purpose === 'string' ? body.purpose : 'Payout made outside payrun',
    ...(sessionId ? { session_id: sessionId, transaction_id: d.sb.nextId('po') } : {}),
    ...(cp ? { counter_party: cp } : {}),
  });
  return json({ status: 'ok', bank_system_id: tx.id, session_id: sessionId ?? null });
}

/** Plays the person answering a link request in the bank's app: `{"result":"linked"}` (default) or `"declined"`. */
function answerLink(d: AdminDeps, requestId: string, body: Record<string, unknown>): Reply {
  if (body.result !== undefined && body.result !== 'linked' && body.result !== 'declined')
    return bad('result: "linked" or "declined"');
  try {
    const r = answerLinkRequest(d.sb, requestId, body.result !== 'declined');
    return json({ status: 'ok', request_id: r.id, link_status: r.linkState });
  } catch (e) {
    if (e instanceof ApiError)
      return json({ status: 'error', error: { code: e.code, description: e.description } }, e.httpStatus);
    throw e;
  }
}
