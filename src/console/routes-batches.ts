/**
 * Batches and payouts: the list, a batch's page and its live progress, approve/reject (signed by the
 * console for the person, sent with src/batch/commands/decide.ts), pause/resume/cancel (the batch's Updates),
 * the audit trail (src/batch/commands/audit.ts), the report files (the batch store's final) and a payout by
 * reference.
 */
import { commandAnswer } from '../i18n/operator-answers';
import { createReadStream, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { batchAudit } from '../batch/commands/audit';
import { subjectOf } from '../batch/services/authorize';
import { sendBatchDecision } from '../batch/commands/decide';
import { ledgerHeadroom } from '../batch/services/headroom';
import { reportHere } from '../batch/commands/settle';
import { batchStoreFor } from '../batch/store/open';
import { isBatchId, isPayoutReference } from '../domain';
import { signStatement } from '../policy/keys';
import type { BatchStatement } from '../../workflows/shared/approval-contract';
import type { StoredBatchMeta } from '../batch/store/files';
import type { Decision } from '../i18n/review';
import { cancelBatchUpdate, pauseBatchUpdate, resumeBatchUpdate } from '../../workflows/batch/contract';
import type { ConsoleContext } from './context';
import { answeredProgress, findPayout, listBatches, submitterOf, type BatchFilter } from './data';
import { ReviewCache } from './review-cache';
import { reviewCsv } from './review-csv';
import { passkeyDecision } from './routes-passkeys';
import { messagePage } from './views';
import { batchesPage, batchPage, byState, payoutPage, phaseName, PHASES } from './views-batches';
import { confirmFigures, confirmPage, type ReviewQuery } from './views-review';
import { proofLinks, retryForm } from './views-work';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

type BatchRequest = FastifyRequest<{ Params: { id: string } }>;

/** A decision's form: the first post shows the confirm page, the second (confirm=1, the figures seen) acts. */
interface DecisionBody {
  reason?: string;
  confirm?: string;
  rows?: string;
  total?: string;
  content?: string;
}

function reviewQuery(q: Record<string, string | undefined>): ReviewQuery {
  return {
    order: q.order === 'amount' ? 'amount' : 'file',
    only: q.only === 'flagged' ? 'flagged' : 'all',
    page: Number(q.page) || 1,
    people: Number(q.people) || 1,
  };
}

export function registerBatchRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { m } = ctx;
  const { client, paths } = ctx.opts;
  const html = (reply: FastifyReply, body: string, code = 200) =>
    reply.code(code).type('text/html; charset=utf-8').send(body);

  /** The stored batch named by the path, or undefined (the caller answers 404). */
  const store = () => batchStoreFor(paths.dataDir);
  const storedBatch = async (req: BatchRequest) =>
    isBatchId(req.params.id) && (await store().exists(req.params.id))
      ? store().readMeta(req.params.id)
      : undefined;
  const reportReady = async (batchId: string) => (await store().readFinal(batchId)) !== undefined;
  const notFound = (req: FastifyRequest, reply: FastifyReply) =>
    html(reply, messagePage(ctx.page(req, reply), '404', m.notFound), 404);
  const reviews = new ReviewCache({
    store,
    policy: () => ctx.opts.policy.current(),
    ledger: () => ledgerHeadroom(client, ctx.opts.taskQueue, ctx.opts.policy.current()),
  });

  /**
   * A decision answered with its confirm page unless this post is the confirmation with the figures the
   * batch has now (rows, total, the file's hash): true when the caller may act.
   */
  async function confirmed(
    req: FastifyRequest<{ Body: DecisionBody }>,
    reply: FastifyReply,
    decision: Decision,
    meta: StoredBatchMeta,
    reason?: string,
  ): Promise<boolean> {
    const b = req.body ?? {};
    const f = confirmFigures(meta);
    if (b.confirm === '1' && b.rows === f.rows && b.total === f.total && b.content === f.content) return true;
    const entry = await reviews.review(meta).catch(() => undefined);
    const changed = b.confirm === '1';
    await html(
      reply,
      confirmPage(ctx.page(req, reply), {
        decision,
        meta,
        changed,
        ...(reason !== undefined ? { reason } : {}),
        ...(entry ? { entry } : {}),
      }),
      changed ? 409 : 200,
    );
    return false;
  }

  app.get<{ Querystring: BatchFilter }>('/batches', async (req, reply) => {
    const q = req.query;
    const filter: BatchFilter = {
      ...(q.state && (PHASES as readonly string[]).includes(q.state) ? { state: q.state } : {}),
      ...(q.from && DATE.test(q.from) ? { from: q.from } : {}),
      ...(q.to && DATE.test(q.to) ? { to: q.to } : {}),
      ...(q.submitter?.trim() ? { submitter: q.submitter.trim() } : {}),
    };
    const items = await listBatches(client, paths.dataDir, filter);
    return html(reply, batchesPage(ctx.page(req, reply), filter, items, ctx.opts.policy.current().names));
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
    '/batches/:id',
    async (req, reply) => {
      const meta = await storedBatch(req);
      if (!meta) return notFound(req, reply);
      const policy = ctx.opts.policy.current();
      const submitter = await submitterOf(paths.dataDir, meta);
      const page = ctx.page(req, reply);
      const finished = await reportReady(meta.batchId);
      return html(
        reply,
        batchPage(page, {
          meta,
          review: { entry: await reviews.review(meta), query: reviewQuery(req.query) },
          progress: await answeredProgress(client, meta.batchId),
          ...(submitter ? { submitter } : {}),
          audit: await batchAudit(client, paths.dataDir, policy, meta.batchId, Date.now(), ctx.opts.lang),
          names: policy.names,
          canApprove: ctx.may(req.viewer, 'approve') && submitter !== req.viewer?.id,
          canOperate: ctx.may(req.viewer, 'operate'),
          reportReady: finished,
          ...(finished && ctx.may(req.viewer, 'submit') ? { retry: retryForm(page, meta.batchId) } : {}),
        }),
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: { encoding?: string } }>(
    '/batches/:id/rows.csv',
    async (req, reply) => {
      const meta = await storedBatch(req);
      if (!meta) return notFound(req, reply);
      const entry = await reviews.review(meta);
      // The ledgers' flags when they are asked now: the download is the list as a whole.
      await reviews.settled(meta.batchId);
      const encoding = req.query.encoding === 'utf-8' ? 'utf-8' : 'windows-1251';
      const name = `${meta.batchId}.rows.csv`;
      return reply
        .type(`text/csv; charset=${encoding}`)
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(Readable.from(reviewCsv(entry, ctx.opts.lang, encoding)));
    },
  );

  app.get<{ Params: { id: string } }>('/batches/:id/progress.json', async (req, reply) => {
    const meta = await storedBatch(req);
    if (!meta) return reply.code(404).send({ error: 'not_found' });
    const p = await answeredProgress(client, meta.batchId);
    const phase = p?.phase ?? 'unknown';
    const finished = p?.finished ?? 0;
    return {
      batchId: meta.batchId,
      phase,
      phaseText: phaseName(
        ctx,
        { phase, ...(p ? { progress: p } : {}) },
        (id) => ctx.opts.policy.current().names.get(id) ?? id,
      ),
      rows: meta.rowCount,
      finished,
      text: m.batch.progressText(finished, meta.rowCount),
      byState: byState(ctx.opts.lang, p ?? { counts: {}, amounts: {} }),
      reportReady: await reportReady(meta.batchId),
    };
  });

  for (const decision of ['approve', 'reject'] as const)
    app.post<{ Params: { id: string }; Body: DecisionBody & { statement?: string; passkey?: string } }>(
      `/batches/:id/${decision}`,
      { preHandler: app.csrfProtection },
      async (req, reply) => {
        const viewer = ctx.require(req, 'approve');
        const meta = await storedBatch(req);
        if (!meta) return notFound(req, reply);
        // The workflow refuses it too; said here first, in the person's words.
        if (decision === 'approve' && (await submitterOf(paths.dataDir, meta)) === viewer.id)
          return html(reply, messagePage(ctx.page(req, reply), m.batch.approve, m.batch.ownBatch), 403);
        const reason = String(req.body?.reason ?? '')
          .trim()
          .slice(0, 500);
        if (!(await confirmed(req, reply, decision, meta, decision === 'reject' ? reason : undefined)))
          return reply;
        // Signed by the person's passkey in the browser; without one, by the console (counted only where the policy says).
        const posted = passkeyDecision(ctx, req.body, viewer, meta, decision);
        if (posted && 'refused' in posted) ctx.flash(req, 'error', m.batch.refused(posted.refused));
        else {
          const signed =
            posted?.signed ??
            signStatement<BatchStatement>(ctx.signerFor(viewer.id), {
              kind: 'batch',
              decision,
              ...subjectOf(meta),
              ...(decision === 'reject' && reason ? { reason } : {}),
            });
          await answer(req, () => sendBatchDecision(client, meta.batchId, signed));
        }
        return reply.redirect(`/batches/${meta.batchId}`, 303);
      },
    );

  const commands = { pause: pauseBatchUpdate, resume: resumeBatchUpdate, cancel: cancelBatchUpdate } as const;
  for (const [name, update] of Object.entries(commands))
    app.post<{ Params: { id: string }; Body: DecisionBody }>(
      `/batches/:id/${name}`,
      { preHandler: app.csrfProtection },
      async (req, reply) => {
        const viewer = ctx.require(req, 'operate');
        const meta = await storedBatch(req);
        if (!meta) return notFound(req, reply);
        if (!(await confirmed(req, reply, name as Decision, meta))) return reply;
        // A name the console vouches for: the person it signed in (the audit shows it as given).
        await answer(req, () =>
          client.workflow.getHandle(meta.batchId).executeUpdate(update, { args: [{ by: viewer.id }] }),
        );
        return reply.redirect(`/batches/${meta.batchId}`, 303);
      },
    );

  /** The batch's answer, or its refusal, as the next page's message. */
  async function answer(req: FastifyRequest, send: () => Promise<string>) {
    try {
      ctx.flash(req, 'ok', m.batch.answer(commandAnswer(await send(), ctx.opts.lang)));
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError)
        ctx.flash(
          req,
          'error',
          m.batch.refused(commandAnswer(err.cause?.message ?? err.message, ctx.opts.lang)),
        );
      else if (err instanceof WorkflowNotFoundError)
        ctx.flash(req, 'error', m.batch.refused(m.notInTemporal));
      else throw err;
    }
  }

  for (const [what, type] of [
    ['report', 'text/csv'],
    ['summary', 'text/plain; charset=utf-8'],
  ] as const)
    app.get<{ Params: { id: string } }>(`/batches/:id/${what}`, async (req, reply) => {
      const meta = await storedBatch(req);
      const final = meta ? await store().readFinal(meta.batchId) : undefined;
      // A store shared across hosts: fetched into this host's done/ when it is not here yet.
      const here =
        final && meta ? await reportHere(store(), paths.batchesDir, meta.batchId, final) : undefined;
      const file = here ? (what === 'report' ? here.reportPath : here.summaryPath) : undefined;
      if (!file || !existsSync(file)) return notFound(req, reply);
      // The report's bytes exactly as written: the file's own encoding and delimiter, numbers already masked.
      return reply
        .type(type)
        .header('content-disposition', `attachment; filename="${encodeURIComponent(basename(file))}"`)
        .send(createReadStream(file));
    });

  app.get<{ Querystring: { reference?: string } }>('/payouts', async (req, reply) => {
    const reference = String(req.query.reference ?? '').trim();
    const page = ctx.page(req, reply);
    if (!reference) return html(reply, payoutPage(page, ''));
    if (!isPayoutReference(reference)) return html(reply, payoutPage(page, reference, { kind: 'none' }), 404);
    const view = await findPayout(client, reference, ctx.opts.taskQueue);
    const proof =
      view.kind === 'paid' && ctx.may(req.viewer, 'proof')
        ? proofLinks(page, reference, !!ctx.opts.bankPublicKeyPem)
        : '';
    return html(reply, payoutPage(page, reference, view, proof), view.kind === 'none' ? 404 : 200);
  });
}
