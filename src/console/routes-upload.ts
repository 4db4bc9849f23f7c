/**
 * Upload, check, dry run, submit: the file is checked with the loader `payrun batch submit` uses
 * (src/csv loadBatch) and kept, owner-only, until its uploader submits it through src/batch submitBatch
 * (source: console, signed by the console for the person). Nothing moves before that click.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dryRunBatch } from '../batch/commands/dry-run';
import { ledgerHeadroom } from '../batch/services/headroom';
import { lookupPayout } from '../batch/services/lookup';
import { SubmitterRefused } from '../batch/services/authorize';
import { loadOptionsFor, submitBatch, describeError } from '../batch/commands/submit';
import { verdictFromTaxpayerWorkflow } from '../batch/commands/verdicts';
import { streamBatch } from '../csv/stream-load';
import { loadBatch, type RowError } from '../csv';
import { MoneyFormatError, rublesToKopecks } from '../money';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { t } from '../i18n';
import { payoutWorkflowId } from '../../workflows/payout/contract';
import type { ConsoleContext } from './context';
import {
  CHECK_SHOWN_ERRORS,
  checkPage,
  dryRunPage,
  messagePage,
  uploadPage,
  type CheckedUpload,
} from './views';
import { earlierSubmission } from './routes-work';
import { repeatWarning, templateLinks } from './views-work';

interface Upload {
  id: string;
  person: string;
  file: string;
  name: string;
  partial: boolean;
  expectTotalKopecks?: number;
  at: number;
}

/** An upload not submitted within this long is deleted (it holds personal data). */
const UPLOAD_KEPT_MS = 2 * 3_600_000;

/** A file name as the batch folders may hold it: no path, no control characters, not empty. */
function safeName(name: string): string {
  const base = [...basename(name.replace(/\\/g, '/'))]
    .map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? '_' : c))
    .join('')
    .slice(0, 120);
  return base && base !== '.' && base !== '..' ? base : 'batch.csv';
}

export function registerUploadRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { m } = ctx;
  const { paths } = ctx.opts;
  const uploads = new Map<string, Upload>();
  const uploadsDir = join(paths.dataDir, 'console-uploads');
  // Uploads of an earlier run cannot be submitted (their ids lived in its memory): their personal data goes.
  rmSync(uploadsDir, { recursive: true, force: true });

  const forget = (u: Upload) => {
    uploads.delete(u.id);
    rmSync(join(uploadsDir, u.id), { recursive: true, force: true });
  };
  const sweep = () => {
    for (const u of uploads.values()) if (Date.now() - u.at > UPLOAD_KEPT_MS) forget(u);
  };
  app.addHook('onClose', async () => {
    for (const u of [...uploads.values()]) forget(u);
  });

  /** The uploader's own upload, or a 404 page. */
  const ownUpload = (req: FastifyRequest<{ Params: { id: string } }>) => {
    const u = uploads.get(req.params.id);
    return u && u.person === req.viewer?.id ? u : undefined;
  };
  const options = (u: Upload) => ({
    paths,
    policy: u.partial ? ('partial' as const) : ('whole-file' as const),
    ...(u.expectTotalKopecks !== undefined ? { expectTotalKopecks: u.expectTotalKopecks } : {}),
  });

  /**
   * The upload checked as a submit will check it, read from its file as a stream (src/csv/stream-load.ts):
   * the page lists at most CHECK_SHOWN_ERRORS row errors and says how many there are.
   */
  const checkUpload = async (file: string, u: Upload): Promise<CheckedUpload> => {
    const batch = await streamBatch(file, loadOptionsFor(options(u)), () => {});
    try {
      const fileErrors = batch.fileErrors;
      const rowErrors: RowError[] = [];
      let seen = 0;
      for await (const e of batch.errors()) {
        if (seen++ < fileErrors.length) continue;
        if (rowErrors.length < CHECK_SHOWN_ERRORS) rowErrors.push(e);
        else break;
      }
      const rowErrorCount = batch.errorCount - fileErrors.length;
      return { fileErrors, rowErrors, rowErrorCount, totals: batch.totals, rejected: batch.rejected };
    } finally {
      batch.close();
    }
  };

  app.get('/upload', (req, reply) => {
    ctx.require(req, 'submit');
    const page = ctx.page(req, reply);
    return reply.type('text/html; charset=utf-8').send(uploadPage(page, templateLinks(page)));
  });

  /**
   * The multipart body's CSRF token, checked as the form's first field (uploadForm puts it there) before a
   * byte of the file is read: the plugin's check runs before a body is parsed, and the token must not
   * ride in the URL. Without the field, the X-CSRF-Token header. False when refused (the 403 page is sent).
   */
  const csrfHolds = (req: FastifyRequest, reply: FastifyReply, token: string): boolean => {
    let holds = false;
    (req as { body: unknown }).body = token ? { _csrf: token } : undefined;
    app.csrfProtection.call(app, req, reply, () => (holds = true));
    return holds;
  };

  app.post('/upload', async (req, reply) => {
    const viewer = ctx.require(req, 'submit');
    let checked = false;
    if (!req.isMultipart()) {
      // A plain form (a script-less browser never sends one here): its token is checked, no file read.
      const token = (req.body as { _csrf?: string } | undefined)?._csrf ?? '';
      if (!csrfHolds(req, reply, token)) return reply;
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(uploadPage({ ...ctx.page(req, reply), flash: { kind: 'error', text: m.upload.noFile } }));
    }
    sweep();
    let bytes: Buffer | undefined;
    let name = 'batch.csv';
    const fields: Record<string, string> = {};
    for await (const part of req.parts()) {
      if (!checked) {
        const token = part.type === 'field' && part.fieldname === '_csrf' ? String(part.value) : '';
        if (!csrfHolds(req, reply, token)) return reply;
        checked = true;
        if (part.type === 'field') continue;
      }
      if (part.type === 'file') {
        bytes = await part.toBuffer();
        name = safeName(part.filename);
      } else fields[part.fieldname] = String(part.value);
    }
    if (!checked && !csrfHolds(req, reply, '')) return reply;
    const page = ctx.page(req, reply);
    const fail = (text: string) =>
      reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(uploadPage({ ...page, flash: { kind: 'error', text } }));
    if (!bytes || bytes.length === 0) return fail(m.upload.noFile);
    let expectTotalKopecks: number | undefined;
    const expect = fields.expectTotal?.trim();
    if (expect) {
      try {
        expectTotalKopecks = rublesToKopecks(expect);
      } catch (err) {
        if (err instanceof MoneyFormatError) return fail(m.upload.expectTotalBad(expect));
        throw err;
      }
    }
    const id = randomBytes(16).toString('hex');
    ensurePrivateDir(uploadsDir);
    ensurePrivateDir(join(uploadsDir, id));
    const file = join(uploadsDir, id, name);
    writePrivateFile(file, bytes);
    const upload: Upload = {
      id,
      person: viewer.id,
      file,
      name,
      partial: fields.partial === '1',
      ...(expectTotalKopecks !== undefined ? { expectTotalKopecks } : {}),
      at: Date.now(),
    };
    uploads.set(id, upload);
    const batch = await checkUpload(file, upload);
    const earlier = await earlierSubmission(paths.dataDir, name, bytes, ctx.lang);
    return reply
      .type('text/html; charset=utf-8')
      .send(checkPage(page, id, name, batch, Boolean(ctx.opts.bank), repeatWarning(page, earlier)));
  });

  app.post<{ Params: { id: string } }>(
    '/uploads/:id/dry-run',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      ctx.require(req, 'submit');
      const u = ownUpload(req);
      const page = ctx.page(req, reply);
      if (!u)
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.dry.heading, m.upload.gone));
      const bank = ctx.opts.bank;
      if (!bank)
        return reply
          .code(503)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.dry.heading, t('console.dryRunOff', {}, ctx.lang)));
      const { client, taskQueue } = ctx.opts;
      // As the CLI's: references looked up in Temporal, tax numbers checked by the payouts' own taxpayer
      // workflows (a submit right after reuses their verdicts instead of waiting out the bank's 30 s rule).
      const report = await dryRunBatch(bank, u.file, {
        ...options(u),
        lookupReference: (reference) => lookupPayout(client, payoutWorkflowId(reference)),
        checkTaxpayer: (ask) => verdictFromTaxpayerWorkflow(client, taskQueue, ask),
        headroomOf: ledgerHeadroom(client, taskQueue, ctx.opts.policy.current()),
      });
      // The rows by the recipient's name too: a reference alone tells an accountant little.
      const names = new Map<number, string>();
      for (const row of loadBatch(readFileSync(u.file), loadOptionsFor(options(u))).rows) {
        const p = row.request?.recipient;
        if (p) names.set(row.row, [p.lastName, p.firstName, p.middleName].filter(Boolean).join(' '));
      }
      return reply.type('text/html; charset=utf-8').send(dryRunPage(page, u.id, u.name, report, names));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/uploads/:id/submit',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const viewer = ctx.require(req, 'submit');
      const u = ownUpload(req);
      if (!u) {
        const page = ctx.page(req, reply);
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.upload.heading, m.upload.gone));
      }
      const { client, taskQueue, batchOptions } = ctx.opts;
      let r: Awaited<ReturnType<typeof submitBatch>>;
      try {
        r = await submitBatch(client, u.file, {
          ...options(u),
          taskQueue,
          submitter: ctx.signerFor(viewer.id),
          whoMayPay: ctx.opts.policy.current(),
          source: 'console',
          ...(batchOptions ? { batchOptions } : {}),
        });
      } catch (err) {
        if (!(err instanceof SubmitterRefused)) throw err;
        forget(u);
        const page = ctx.page(req, reply);
        return reply
          .code(403)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.upload.heading, err.message));
      }
      forget(u);
      if (r.status === 'rejected') {
        const page = ctx.page(req, reply);
        const text = r.errors.map(describeError).join('; ');
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(messagePage(page, m.upload.heading, text));
      }
      ctx.flash(
        req,
        'ok',
        r.status === 'started'
          ? m.upload.submitted(r.batchId)
          : r.status === 'resubmitted'
            ? m.upload.resubmitted(r.batchId)
            : m.upload.already(r.batchId, r.firstFile),
      );
      return reply.redirect(`/batches/${r.batchId}`, 303);
    },
  );
}
