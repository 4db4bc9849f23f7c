/**
 * The reconciliation page (issue 39): what `payrun reconcile status` lists, the day's report and 1C file as
 * the worker's exporters wrote them (src/reconcile/), and resolving an open difference exactly as
 * `payrun reconcile resolve` does — a DifferenceStatement sent to the worker, which judges it under its own
 * policy and keeps it with the resolution (src/reconcile/resolve.ts). The worker refuses a statement the
 * console signed (`via`): the person signs it with their own passkey, as for an approval.
 */
import { createReadStream, existsSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { t } from '../i18n';
import { moscowDay } from '../reconcile/days';
import { ResolutionNotSent, sendResolution } from '../reconcile/send-resolution';
import { isAccount, type ReconcileStore } from '../reconcile/store';
import { reconcileStoreFor, withLocalReports } from '../reconcile/store/open';
import { unreconciledDays } from '../reconcile/unreconciled';
import { parseDifferenceResolution } from '../../workflows/reconciliation/contract';
import {
  statementMessage,
  type DifferenceStatement,
  type SignedStatement,
} from '../../workflows/shared/approval-contract';
import type { ConsoleContext } from './context';
import { reconciliationPage, type ReconAccountView, type ReconDayView } from './views-reconcile';

/** Days shown per account, newest first. */
const DAYS_SHOWN = 31;
/** Resolved differences shown per account, newest first. */
const RESOLVED_SHOWN = 20;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FILES = { 'report.csv': 'csv', '1c.txt': 'oneC' } as const;

async function accountView(store: ReconcileStore, account: string, today: string): Promise<ReconAccountView> {
  const all = Object.values(await store.readDifferences(account));
  const open = all
    .filter((d) => d.state === 'open')
    .sort((a, b) => a.day.localeCompare(b.day) || a.key.localeCompare(b.key));
  const resolved = all
    .filter((d) => d.state === 'resolved' && d.resolved)
    .sort((a, b) => b.resolved!.at.localeCompare(a.resolved!.at))
    .slice(0, RESOLVED_SHOWN);
  const reconciled = await store.reconciledDays(account);
  const behind = await unreconciledDays(store, account, today);
  const days = new Map<string, ReconDayView>();
  for (const day of reconciled.slice(-DAYS_SHOWN)) {
    const n = open.filter((d) => d.day === day).length;
    const outcome = await store.readDayOutcome(account, day);
    days.set(day, { day, state: n > 0 ? 'differences' : 'clean', open: n, files: !!outcome?.files });
  }
  for (const d of behind)
    days.set(d.day, {
      day: d.day,
      state: d.why === 'statement_unavailable' ? 'no_statement' : 'never_run',
      open: 0,
      ...(d.error ? { error: d.error } : {}),
      files: false,
    });
  return {
    account,
    ...(reconciled.length ? { last: reconciled.at(-1)! } : {}),
    days: [...days.values()].sort((a, b) => b.day.localeCompare(a.day)).slice(0, DAYS_SHOWN),
    open,
    resolved,
  };
}

export function registerReconcileRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { lang } = ctx;
  const store = () => reconcileStoreFor(ctx.opts.paths.dataDir);
  const passkeysOf = (id: string) =>
    ctx.opts.policy.current().view.people.find((p) => p.id === id)?.passkeys ?? [];
  const canSign = (id: string) => !!ctx.opts.policy.current().view.webauthn && passkeysOf(id).length > 0;
  const refuse = (reply: FastifyReply, code: number, error: string) => reply.code(code).send({ error });

  app.get('/reconciliation', async (req, reply) => {
    const s = store();
    const today = moscowDay(Date.now());
    const accounts = [];
    for (const account of await s.accounts()) accounts.push(await accountView(s, account, today));
    return reply.type('text/html; charset=utf-8').send(
      reconciliationPage(ctx.page(req, reply), {
        accounts,
        mayResolve: ctx.may(req.viewer, 'resolve'),
        hasPasskey: canSign(req.viewer!.id),
        names: ctx.opts.policy.current().names,
      }),
    );
  });

  app.get<{ Params: { account: string; day: string; file: string } }>(
    '/reconciliation/:account/days/:day/:file',
    async (req, reply) => {
      const { account, day, file } = req.params;
      const which = FILES[file as keyof typeof FILES];
      const outcome =
        which && isAccount(account) && DAY.test(day) ? await store().readDayOutcome(account, day) : undefined;
      if (!outcome?.files) return reply.callNotFound();
      // A store shared across hosts: the worker's files fetched here first, exactly as it wrote them.
      const local = await withLocalReports(store(), ctx.opts.paths.dataDir, outcome);
      const path = local.files![which];
      if (!existsSync(path)) return reply.callNotFound();
      return reply
        .type(which === 'csv' ? 'text/csv' : 'text/plain; charset=windows-1251')
        .header('content-disposition', `attachment; filename="${account}-${day}-${file}"`)
        .send(createReadStream(path));
    },
  );

  /** The statement the person's passkey signs: built here, so its canonical text is one. */
  app.post<{ Params: { account: string; key: string }; Body: { reason?: string } }>(
    '/reconciliation/:account/:key/statement',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const viewer = ctx.require(req, 'resolve');
      const { account, key } = req.params;
      if (!isAccount(account)) return refuse(reply, 404, ctx.m.notFound);
      if (!canSign(viewer.id)) return refuse(reply, 409, t('work.recon.noPasskey', {}, lang));
      const reason = String(req.body?.reason ?? '')
        .trim()
        .slice(0, 500);
      if (!reason) return refuse(reply, 400, t('work.recon.noReason', {}, lang));
      const statement: DifferenceStatement = {
        v: 1,
        kind: 'difference',
        decision: 'resolve',
        account,
        key,
        reason,
        person: viewer.id,
        at: new Date().toISOString(),
      };
      return reply.send({
        statement,
        message: statementMessage(statement),
        rpId: ctx.opts.policy.current().view.webauthn!.rpId,
        allow: passkeysOf(viewer.id).map((k) => k.id),
      });
    },
  );

  app.post<{
    Params: { account: string; key: string };
    Body: { statement?: string; passkey?: string; reason?: string };
  }>(
    '/reconciliation/:account/:key/resolve',
    { preHandler: app.csrfProtection },
    async (
      req: FastifyRequest<{
        Params: { account: string; key: string };
        Body: { statement?: string; passkey?: string; reason?: string };
      }>,
      reply,
    ) => {
      const viewer = ctx.require(req, 'resolve');
      const signed = passkeyResolution(req.body, viewer.id, req.params.account, req.params.key);
      if (!signed)
        ctx.flash(
          req,
          'error',
          t(canSign(viewer.id) ? 'work.recon.notThis' : 'work.recon.noPasskey', {}, lang),
        );
      else
        try {
          const done = await sendResolution(ctx.opts.client, ctx.opts.taskQueue, signed);
          ctx.flash(req, 'ok', t('reconcile.resolve.done', done, lang));
        } catch (err) {
          if (!(err instanceof ResolutionNotSent)) throw err;
          ctx.flash(req, 'error', err.message);
        }
      return reply.redirect('/reconciliation', 303);
    },
  );
}

/** The posted passkey resolution when it is the viewer's, of this account and difference, with a reason. */
function passkeyResolution(
  body: { statement?: unknown; passkey?: unknown } | undefined,
  person: string,
  account: string,
  key: string,
): SignedStatement<DifferenceStatement> | undefined {
  if (typeof body?.passkey !== 'string' || typeof body.statement !== 'string') return undefined;
  let parsed: ReturnType<typeof parseDifferenceResolution>;
  try {
    parsed = parseDifferenceResolution({
      statement: JSON.parse(body.statement),
      passkey: JSON.parse(body.passkey),
    });
  } catch {
    return undefined;
  }
  if (!parsed.ok) return undefined;
  const s = parsed.value.statement;
  if (s.person !== person || s.account !== account || s.key !== key || s.via !== undefined) return undefined;
  return parsed.value;
}
